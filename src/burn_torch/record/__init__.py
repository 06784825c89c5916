"""Records and stores (Burn's ``burn::record`` and ``burn-store``).

Recorders save module, optimizer and scheduler records in Burn's encodings and precision
settings, to files ([`NamedMpkFileRecorder`][burn_torch.record.recorder.NamedMpkFileRecorder],
Burn's default: [`DefaultRecorder`][burn_torch.record.recorder.DefaultRecorder] full precision,
[`CompactRecorder`][burn_torch.record.recorder.CompactRecorder] half precision;
[`NamedMpkGzFileRecorder`][burn_torch.record.recorder.NamedMpkGzFileRecorder],
[`BinFileRecorder`][burn_torch.record.recorder.BinFileRecorder],
[`BinGzFileRecorder`][burn_torch.record.recorder.BinGzFileRecorder],
[`JsonGzFileRecorder`][burn_torch.record.recorder.JsonGzFileRecorder],
[`PrettyJsonFileRecorder`][burn_torch.record.recorder.PrettyJsonFileRecorder]) or to bytes
([`BinBytesRecorder`][burn_torch.record.recorder.BinBytesRecorder],
[`NamedMpkBytesRecorder`][burn_torch.record.recorder.NamedMpkBytesRecorder]); stores save a module's
tensors in interchange formats and load them back with remapping, filtering and partial loading
([`BurnpackStore`][burn_torch.record.store.BurnpackStore],
[`SafetensorsStore`][burn_torch.record.store.SafetensorsStore],
[`PytorchStore`][burn_torch.record.store.PytorchStore]). ``Config.save(path)`` /
``Config.load(path)`` handle configs (JSON). See ``.recorder`` and ``.store`` for the file formats
and where they differ from Burn's.
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
