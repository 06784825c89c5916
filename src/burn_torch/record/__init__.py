"""Records and stores (Burn's ``burn::record`` and ``burn-store``).

Recorders save module, optimizer and scheduler records in MessagePack files
(:class:`NamedMpkFileRecorder`; :func:`DefaultRecorder` full precision, :func:`CompactRecorder`
half precision); stores save a module's tensors in interchange formats and load them back with
remapping, filtering and partial loading (:class:`BurnpackStore`, :class:`SafetensorsStore`,
:class:`PytorchStore`). ``Config.save(path)`` / ``Config.load(path)`` handle configs (JSON).
See :mod:`.recorder` and :mod:`.store` for the file formats and where they differ from Burn's.
"""
from .recorder import (BURN_VERSION, CompactRecorder, DefaultRecorder, NamedMpkFileRecorder,
                       NamedMpkGzFileRecorder, RecordError, Recorder, load_file, save_file)
from .settings import (DoublePrecisionSettings, FullPrecisionSettings, HalfPrecisionSettings,
                       PrecisionSettings)
from .store import (Adapter, ApplyResult, BurnpackStore, BurnToPyTorchAdapter,
                    HalfPrecisionAdapter, PytorchStore, PyTorchToBurnAdapter, SafetensorsStore,
                    StoreError)

__all__ = [
    "Recorder", "NamedMpkFileRecorder", "NamedMpkGzFileRecorder", "DefaultRecorder",
    "CompactRecorder", "RecordError", "save_file", "load_file", "BURN_VERSION",
    "PrecisionSettings", "FullPrecisionSettings", "HalfPrecisionSettings",
    "DoublePrecisionSettings", "ApplyResult", "StoreError", "Adapter", "BurnpackStore",
    "SafetensorsStore", "PytorchStore", "PyTorchToBurnAdapter", "BurnToPyTorchAdapter",
    "HalfPrecisionAdapter",
]
