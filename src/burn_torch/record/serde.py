"""Burn's serialized shapes of tensors and parameter ids (burn-core 0.21 ``record``).

A tensor is Burn's ``TensorData``: ``{"bytes": <little-endian values>, "shape": [..],
"dtype": "F32"}`` (bool tensors: dtype ``{"Bool": "Native"}``, one byte per value). A parameter
is Burn's ``ParamSerde``: ``{"id": <ParamId>, "param": <TensorData>}``, the id being the 8
little-endian bytes of the 64-bit id in lowercase base32hex without padding (Burn's
``BASE32_DNSSEC``).
"""
from __future__ import annotations

import base64
import math

import numpy as np
import torch

from ..module import ParamId

DTYPE_CODES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.uint16: "U16", torch.uint32: "U32", torch.uint64: "U64",
}
CODE_DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}
BOOL_CODE = {"Bool": "Native"}


def dtype_code(dtype: torch.dtype):
    """Burn's ``DType`` for a torch dtype; TypeError for one Burn has no name for."""
    if dtype == torch.bool:
        return dict(BOOL_CODE)
    try:
        return DTYPE_CODES[dtype]
    except KeyError:
        raise TypeError(f"dtype {dtype} has no Burn DType") from None


def code_dtype(code) -> torch.dtype:
    """The torch dtype of Burn's ``DType`` ``code``; ValueError for an unknown one."""
    if isinstance(code, dict) and list(code) == ["Bool"]:
        return torch.bool
    if isinstance(code, str) and code in CODE_DTYPES:
        return CODE_DTYPES[code]
    raise ValueError(f"unknown tensor dtype {code!r}")


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The values of ``t`` as little-endian bytes, row-major."""
    t = t.detach().to("cpu").contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    arr = t.numpy()
    return arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()


def tensor_from_bytes(data: bytes, dtype: torch.dtype, shape: list[int]) -> torch.Tensor:
    """A CPU tensor from little-endian ``data``; ValueError when the size does not match."""
    view = torch.int16 if dtype == torch.bfloat16 else dtype
    np_dtype = torch.empty((), dtype=view).numpy().dtype.newbyteorder("<")
    count = math.prod(shape)   # exact: numpy's int64 product could wrap around
    if len(data) != count * np_dtype.itemsize:
        raise ValueError(f"{len(data)} bytes do not hold a {dtype} tensor of shape {shape}")
    arr = np.frombuffer(data, dtype=np_dtype).astype(np_dtype.newbyteorder("="))
    t = torch.from_numpy(arr.copy()).reshape(shape)
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


def encode_tensor(t: torch.Tensor) -> dict:
    return {"bytes": tensor_bytes(t), "shape": list(t.shape), "dtype": dtype_code(t.dtype)}


def decode_tensor(obj: dict) -> torch.Tensor:
    shape = obj["shape"]
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
        raise ValueError(f"bad tensor shape {shape!r}")
    if not isinstance(obj["bytes"], (bytes, bytearray)):
        raise ValueError("tensor bytes are not a byte string")
    return tensor_from_bytes(bytes(obj["bytes"]), code_dtype(obj["dtype"]), shape)


def is_tensor(obj) -> bool:
    return isinstance(obj, dict) and set(obj) == {"bytes", "shape", "dtype"}


def is_param(obj) -> bool:
    return isinstance(obj, dict) and set(obj) == {"id", "param"} and is_tensor(obj["param"])


def encode_param_id(pid: ParamId) -> str:
    """Burn's text form of a ParamId (base32hex, lowercase, no padding, of 8 LE bytes)."""
    return base64.b32hexencode(pid.val.to_bytes(8, "little")).decode("ascii").rstrip("=").lower()


def decode_param_id(text: str) -> ParamId:
    """The ParamId of Burn's text form; ValueError when ``text`` is not one."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"{text!r} is not a ParamId")
    try:
        raw = base64.b32hexdecode(text.upper() + "=" * (-len(text) % 8))
    except (ValueError, TypeError):
        raise ValueError(f"{text!r} is not a ParamId") from None
    if len(raw) > 16:
        raise ValueError(f"{text!r} is not a ParamId")
    return ParamId(int.from_bytes(raw[:8].ljust(8, b"\0"), "little"))
