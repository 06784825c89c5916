"""Spec rows: dtype and device conversions (``ops/convert.py``); gradients come back in the
source's dtype."""
from burn_torch import Device, DType
from spec import F, Row

ROWS = [
    Row("cast", lambda x: x.cast(DType.F32), lambda x: x.float(), (F(2, 3),), rtol=1e-6, atol=1e-7,
        numeric=False),  # a float32 output: central differences at 1e-6 are noise
    Row("to_device", lambda x: x.to_device(Device.cpu()), lambda x: x.to("cpu") * 1, (F(2, 3),)),
]
