"""Burn's module system: [`Module`][burn_torch.module.module.Module],
[`Param`][burn_torch.module.param.Param] / ``ParamId``, visitors and mappers, records and files, and
Burn-style [`Config`][burn_torch.module.config.Config] builders.

See ``module.py`` for how parameters are found and how modules behave as values, ``visitor.py``
for how a module tree is walked, ``param.py`` for parameter trainability (what ``train()`` /
``valid()`` / ``no_grad()`` do), ``record.py`` for loading checks and ``file_io.py`` for the file
format. Records, files, tying and ``distributed`` sit below ``module.py``: they walk modules with
the visitors and never import [`Module`][burn_torch.module.module.Module] (``Module``'s methods call
them).
"""
from .config import Config
from .file_io import read_record, read_safetensors, write_safetensors
from .module import Module, list_param_ids, module_fields
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
    "list_param_ids", "module_fields", "TiedParamError", "NewParamIds",
]
