"""Records and stores (Burn's ``burn::record`` and ``burn-store``).

Recorders save module, optimizer and scheduler records in Burn's encodings and precision
settings, to files (:class:`NamedMpkFileRecorder`, Burn's default: :func:`DefaultRecorder` full
precision, :func:`CompactRecorder` half precision; :class:`NamedMpkGzFileRecorder`,
:class:`BinFileRecorder`, :class:`BinGzFileRecorder`, :class:`JsonGzFileRecorder`,
:class:`PrettyJsonFileRecorder`) or to bytes (:class:`BinBytesRecorder`,
:class:`NamedMpkBytesRecorder`); stores save a module's tensors in interchange formats and load them back with
remapping, filtering and partial loading (:class:`BurnpackStore`, :class:`SafetensorsStore`,
:class:`PytorchStore`). ``Config.save(path)`` / ``Config.load(path)`` handle configs (JSON).
See :mod:`.recorder` and :mod:`.store` for the file formats and where they differ from Burn's.
"""
from .recorder import (BURN_VERSION, BinBytesRecorder, BinFileRecorder, BinGzFileRecorder,
                       BytesRecorder, CompactRecorder, DebugRecordSettings, DefaultRecorder,
                       FileRecorder, JsonGzFileRecorder, NamedMpkBytesRecorder,
                       NamedMpkFileRecorder, NamedMpkGzFileRecorder, NoStdInferenceRecorder,
                       NoStdTrainingRecorder, PrettyJsonFileRecorder, RecordError, Recorder,
                       SensitiveCompactRecorder, load_file, save_file)
from .settings import (DoublePrecisionSettings, FullPrecisionSettings, HalfPrecisionSettings,
                       PrecisionSettings)
from .store import (Adapter, ApplyResult, BurnpackStore, BurnToPyTorchAdapter,
                    HalfPrecisionAdapter, PytorchStore, PyTorchToBurnAdapter, SafetensorsStore,
                    StoreError)

__all__ = [
    "Recorder", "FileRecorder", "BytesRecorder", "NamedMpkFileRecorder", "NamedMpkGzFileRecorder",
    "BinFileRecorder", "BinGzFileRecorder", "JsonGzFileRecorder", "PrettyJsonFileRecorder",
    "BinBytesRecorder", "NamedMpkBytesRecorder", "DefaultRecorder", "CompactRecorder",
    "SensitiveCompactRecorder", "NoStdTrainingRecorder", "NoStdInferenceRecorder",
    "DebugRecordSettings", "RecordError", "save_file", "load_file", "BURN_VERSION",
    "PrecisionSettings", "FullPrecisionSettings", "HalfPrecisionSettings",
    "DoublePrecisionSettings", "ApplyResult", "StoreError", "Adapter", "BurnpackStore",
    "SafetensorsStore", "PytorchStore", "PyTorchToBurnAdapter", "BurnToPyTorchAdapter",
    "HalfPrecisionAdapter",
]
