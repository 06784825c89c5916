"""The catalog of PyTorch → burn_torch divergences, machine-readable.

Defined in ``burn_torch_check.catalog`` (torch-free, so the porting checker starts without
importing torch) and re-exported here under its public path.
"""
from burn_torch_check.catalog import CATALOG_JSON, SECTIONS, CatalogEntry, catalog, entry, section_file

__all__ = ["CATALOG_JSON", "SECTIONS", "CatalogEntry", "catalog", "entry", "section_file"]
