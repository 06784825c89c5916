"""Burn's module system: :class:`Module`, :class:`Param` / :class:`ParamId`, visitors and mappers,
records and files, and Burn-style :class:`Config` builders.

See ``module.py`` for how parameters are found and how modules behave as values, ``visitor.py``
for how a module tree is walked, ``param.py`` for parameter trainability (what ``train()`` /
``valid()`` / ``no_grad()`` do), ``record.py`` for loading checks and ``file_io.py`` for the file
format. Records, files, tying and ``distributed`` sit below ``module.py``: they walk modules with
the visitors and never import :class:`Module` (``Module``'s methods call them).
"""
from .config import Config
from .file_io import read_record, read_safetensors, write_safetensors
from .module import Module, list_param_ids
from .new_ids import NewParamIds
from .param import Param, ParamId, TrainingFlag
from .record import (LoadReport, ModuleRecord, ParamRecord, RecordMismatchError, check_record,
                     into_record, load_record)
from .tying import TiedParamError
from .visitor import ModuleMapper, ModuleVisitor, PathTracker

__all__ = [
    "Module", "ModuleVisitor", "ModuleMapper", "PathTracker", "Param", "ParamId", "TrainingFlag",
    "ModuleRecord", "ParamRecord", "LoadReport", "RecordMismatchError", "check_record",
    "into_record", "load_record", "read_record", "read_safetensors", "write_safetensors", "Config",
    "list_param_ids", "TiedParamError", "NewParamIds",
]
