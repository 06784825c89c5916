"""PyTorch ``state_dict`` interop: export a module's parameters under PyTorch's names and
layouts, and load a PyTorch state dict into a module, reporting missing and unexpected keys as
``torch.nn.Module.load_state_dict`` does.

Most layers share names and layouts with PyTorch (a module's dotted parameter paths are the
state-dict keys). Layers that differ declare a
[`LayerAdapter`][burn_torch.interop.state_dict.LayerAdapter]: renamed fields (Burn's norm layers
call ``weight``/``bias`` ``gamma``/``beta``), fields stored transposed (Burn's ``Linear.weight`` is
``[d_input, d_output]``, PyTorch's ``[out, in]``), and PyTorch-only entries (BatchNorm's
``num_batches_tracked``: written as 0 on export, accepted and ignored on import), renamed sub-module
paths (a TransformerEncoderLayer's ``mha`` is PyTorch's ``self_attn``) and fused entries (PyTorch's
``in_proj_weight`` stacks the query, key and value weights; an LSTM's ``weight_ih_l0`` stacks its
four gates'). Adapters are looked up by the module's class
([`register_adapter`][burn_torch.interop.state_dict.register_adapter]), then by class name for
``burn_torch.nn`` layers; an adapter may also be a function of the module (when the mapping depends
on its configuration).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple, TypeVar

import torch

from ..autodiff.recorder import wrap
from ..module import LoadReport, Module, Param, RecordMismatchError, load_record

if TYPE_CHECKING:
    from ..nn.attention import CrossAttention
    from ..nn.transformer import TransformerDecoderLayer, TransformerEncoderLayer

_M = TypeVar("_M", bound=Module)  # loading returns the caller's module class


@dataclass(frozen=True)
class LayerAdapter:
    """How one Burn layer's state maps to its PyTorch counterpart's state-dict entries.

    Paths are relative to the layer and apply after its sub-modules' own adapters ran.
    ``renames`` maps a path prefix (a field, or a dotted path into a sub-module) to PyTorch's;
    ``transposed`` names the 2-D fields PyTorch stores ``[out, in]``; ``torch_only`` makes the
    PyTorch-only entries (exported, ignored on import); ``fused`` maps a PyTorch name to the
    paths it concatenates along its dim 0 (each part in PyTorch's layout).
    """

    renames: Mapping[str, str] = field(default_factory=dict)          # Burn path -> torch name
    transposed: frozenset = frozenset()                                 # 2-D fields stored [out, in]
    torch_only: Mapping[str, Callable[[], torch.Tensor]] = field(default_factory=dict)
    fused: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # torch name -> parts


LINEAR = LayerAdapter(transposed=frozenset({"weight"}))
NORM = LayerAdapter(renames={"gamma": "weight", "beta": "bias"})
BATCH_NORM = LayerAdapter(renames={"gamma": "weight", "beta": "bias"},
                          torch_only={"num_batches_tracked": lambda: torch.tensor(0, dtype=torch.int64)})
MULTI_HEAD_ATTENTION = LayerAdapter(
    renames={"output": "out_proj"},
    fused={"in_proj_weight": ("query.weight", "key.weight", "value.weight"),
           "in_proj_bias": ("query.bias", "key.bias", "value.bias")})
def _recurrent(gates: tuple[str, ...]) -> LayerAdapter:
    """A one-layer recurrent layer: PyTorch's ``weight_ih_l0`` (``weight_hh_l0``, ``bias_*``)
    stacks the gates' input (hidden) transforms, in PyTorch's gate order."""
    return LayerAdapter(fused={
        f"{kind}_{side}_l0": tuple(f"{gate}.{transform}.{kind}" for gate in gates)
        for kind in ("weight", "bias")
        for side, transform in (("ih", "input_transform"), ("hh", "hidden_transform"))})


LSTM = _recurrent(("input_gate", "forget_gate", "cell_gate", "output_gate"))  # i, f, g, o
GRU = _recurrent(("reset_gate", "update_gate", "new_gate"))                    # r, z, n
RNN = _recurrent(("gate",))
RECURRENT_KEYS = tuple(f"{kind}_{side}_l0" for kind in ("weight", "bias") for side in ("ih", "hh"))
BIDIRECTIONAL = LayerAdapter(renames={
    **{f"forward.{k}": k for k in RECURRENT_KEYS},
    **{f"reverse.{k}": f"{k}_reverse" for k in RECURRENT_KEYS}})
"""A ``Bi`` layer: its ``forward`` layer's keys are PyTorch's ``*_l0``, its ``reverse`` layer's
``*_l0_reverse`` (``torch.nn.LSTM(..., bidirectional=True)``)."""


def transformer_encoder_layer(layer: TransformerEncoderLayer) -> LayerAdapter:
    """``torch.nn.TransformerEncoderLayer``'s names. Its ``norm1`` is the norm around the
    attention block: Burn's ``norm_2`` when ``norm_first``, ``norm_1`` otherwise."""
    first, second = ("norm_2", "norm_1") if layer.norm_first else ("norm_1", "norm_2")
    return LayerAdapter(renames={"mha": "self_attn", "pwff.linear_inner": "linear1",
                                 "pwff.linear_outer": "linear2", first: "norm1", second: "norm2"})


def transformer_decoder_layer(layer: TransformerDecoderLayer) -> LayerAdapter:
    """``torch.nn.TransformerDecoderLayer``'s names: ``cross_attn`` is its ``multihead_attn``;
    its ``norm1``/``norm2``/``norm3`` are the norms of the self-attention, cross-attention and
    feed-forward blocks: Burn's ``norm_1``/``norm_2``/``norm_3``, or with ``norm_first``
    ``norm_3``/``norm_1``/``norm_2`` (the norm applied before each block)."""
    norms = ("norm_3", "norm_1", "norm_2") if layer.norm_first else ("norm_1", "norm_2", "norm_3")
    return LayerAdapter(renames={"cross_attn": "multihead_attn", "pwff.linear_inner": "linear1",
                                 "pwff.linear_outer": "linear2",
                                 **{burn: f"norm{k}" for k, burn in enumerate(norms, 1)}})


def cross_attention(layer: CrossAttention) -> LayerAdapter:
    """``torch.nn.MultiheadAttention(d_model, n_heads, kdim=d_context, vdim=d_context)``'s
    names: separate ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when the context width
    differs from the query's (one ``in_proj_weight`` otherwise), one ``in_proj_bias``."""
    bias = {"in_proj_bias": ("query.bias", "key.bias", "value.bias")}
    if layer.key.weight.val().dims()[0] == layer.query.weight.val().dims()[0]:
        return LayerAdapter(renames={"output": "out_proj"}, fused={
            "in_proj_weight": ("query.weight", "key.weight", "value.weight"), **bias})
    return LayerAdapter(renames={"output": "out_proj", "query.weight": "q_proj_weight",
                                 "key.weight": "k_proj_weight", "value.weight": "v_proj_weight"},
                        fused=bias)


# a LayerAdapter, or a function of a module of the class it is registered for (a type that
# differs per key) returning one
AdapterSpec = LayerAdapter | Callable[..., LayerAdapter]
_BY_CLASS: dict[type, AdapterSpec] = {}
_BY_NN_NAME: dict[str, AdapterSpec] = {
    "Linear": LINEAR, "BatchNorm": BATCH_NORM, "LayerNorm": NORM, "GroupNorm": NORM,
    "InstanceNorm": NORM, "RmsNorm": NORM, "MultiHeadAttention": MULTI_HEAD_ATTENTION,
    "Lstm": LSTM, "Gru": GRU, "Rnn": RNN, "BiLstm": BIDIRECTIONAL, "BiGru": BIDIRECTIONAL,
    "BiRnn": BIDIRECTIONAL, "TransformerEncoderLayer": transformer_encoder_layer,
    "PRelu": LayerAdapter(renames={"alpha": "weight"}),
    "TransformerDecoderLayer": transformer_decoder_layer, "CrossAttention": cross_attention,
}
# burn_torch.nn layers holding parameters whose names and layouts are PyTorch's: declared, so
# that an undeclared layer (or one added later) raises instead of loading with the wrong layout
_SAME_LAYOUT = frozenset({
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "DeformConv2d", "Embedding", "GateController", "PositionWiseFeedForward", "SwiGlu",
    "TransformerEncoder", "TransformerDecoder", "TransformerStack", "BiLayer"})
_IDENTITY = LayerAdapter()


def register_adapter(cls: type, adapter: AdapterSpec) -> None:
    """Uses ``adapter`` (a LayerAdapter, or a function of the module returning one) for every
    module of class ``cls`` (and its subclasses)."""
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise TypeError(f"register_adapter expects a Module subclass, got {cls!r}")
    _BY_CLASS[cls] = adapter


def adapter_for(module: Module) -> LayerAdapter:
    """The adapter of ``module``'s class, found through its class hierarchy (a subclass of
    ``nn.Linear`` loads transposed as ``nn.Linear`` does): the nearest class registered with
    [`register_adapter`][burn_torch.interop.state_dict.register_adapter] or declared by
    ``burn_torch.nn``; identity for modules of your own.

    Raises TypeError for a ``burn_torch.nn`` layer (or a subclass of one) holding parameters
    whose class declares no adapter: its layout is unknown, and guessing PyTorch's could load
    weights silently wrong."""
    spec = _lookup(type(module))
    if spec is None:
        if any(True for _ in _params(module)):
            raise TypeError(
                f"no state-dict adapter for {type(module).__module__}.{type(module).__qualname__} "
                f"(a burn_torch.nn layer): declare how its parameters map to PyTorch's state dict "
                f"with register_adapter({type(module).__name__}, LayerAdapter(...)) "
                f"(LayerAdapter() when its names and layouts are PyTorch's)")
        spec = _IDENTITY
    return spec if isinstance(spec, LayerAdapter) else spec(module)


def _lookup(cls: type) -> AdapterSpec | None:
    """The nearest adapter in ``cls``'s MRO; None when that class is an undeclared
    ``burn_torch.nn`` layer."""
    undeclared_nn = False
    for base in cls.__mro__:
        if base in _BY_CLASS:
            return _BY_CLASS[base]
        if base.__module__.startswith("burn_torch.nn"):
            if base.__name__ in _BY_NN_NAME:
                return _BY_NN_NAME[base.__name__]
            if base.__name__ in _SAME_LAYOUT:
                return _IDENTITY
            undeclared_nn = True
    return None if undeclared_nn else _IDENTITY


def _params(module: Module):
    """The Params of ``module`` at any depth."""
    for _, child in _children(module, ""):
        if isinstance(child, Param):
            yield child
        else:
            yield from _params(child)


class _Part(NamedTuple):
    burn_path: str
    transposed: bool


# torch key -> the Burn parameters it holds (one, or several fused), or a torch-only maker
_Layout = dict[str, "list[_Part] | Callable[[], torch.Tensor]"]


def _layout(module: Module) -> _Layout:
    """Every torch key of ``module``'s state dict, in order, with what it holds."""
    adapter = adapter_for(module)
    keys: _Layout = {}
    for path, child in _children(module, ""):
        if isinstance(child, Param):
            keys[path] = [_Part(path, path in adapter.transposed)]
            continue
        for key, spec in _layout(child).items():
            keys[f"{path}.{key}"] = spec if callable(spec) else [
                _Part(f"{path}.{p.burn_path}", p.transposed) for p in spec]
    keys.update(adapter.torch_only)
    keys = _fuse(keys, adapter.fused)
    return {_rename(key, adapter.renames): spec for key, spec in keys.items()}


def _children(value, path: str):
    """``(relative path, Param or Module)`` for the parameters and sub-modules ``value`` holds
    (through lists, tuples and dicts), in attribute order."""
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, (list, tuple)) else vars(value).items())
    for name, child in items:
        child_path = f"{path}.{name}" if path else str(name)
        if isinstance(child, (Param, Module)):
            yield child_path, child
        elif isinstance(child, (list, tuple, dict)):
            yield from _children(child, child_path)


def _fuse(keys: _Layout, fused: Mapping[str, tuple[str, ...]]) -> _Layout:
    """``keys`` with each complete group of ``fused`` parts replaced by one entry (placed where
    its first part was); incomplete groups (a disabled bias) stay unfused."""
    groups = {parts[0]: (name, parts) for name, parts in fused.items()
              if all(isinstance(keys.get(p), list) for p in parts)}
    absorbed = {p for _, parts in groups.values() for p in parts}
    out: _Layout = {}
    for key, spec in keys.items():
        if key in groups:
            name, parts = groups[key]
            # a fused group's parts are parameters (lists of parts), never computed entries
            out[name] = [part for p in parts for part in keys[p]]  # type: ignore[union-attr]
        elif key not in absorbed:
            out[key] = spec
    return out


def _rename(key: str, renames: Mapping[str, str]) -> str:
    """``key`` with its longest renamed prefix (whole dotted segments) replaced."""
    segments = key.split(".")
    for i in range(len(segments), 0, -1):
        head = ".".join(segments[:i])
        if head in renames:
            return ".".join([renames[head], *segments[i:]])
    return key


def _torch_shape(param: Param, transposed: bool) -> list[int]:
    dims = param.val().dims()
    return dims[::-1] if transposed else dims


def to_torch_state_dict(module: Module) -> "OrderedDict[str, torch.Tensor]":
    """The module's parameters as a PyTorch state dict (fresh contiguous torch tensors, on the
    parameters' devices), with PyTorch's names and layouts; loads into the equivalent
    ``torch.nn`` model with ``load_state_dict``."""
    values = {name: p.val().to_torch() for name, p in module.named_params()}
    # every parameter has a value, so no key maps to None
    return to_torch_layout(module, values, torch_only=True)  # type: ignore[return-value]


def to_torch_layout(module: Module, values: Mapping[str, "torch.Tensor | None"],
                    torch_only: bool = False) -> "OrderedDict[str, torch.Tensor | None]":
    """``values`` keyed by ``module``'s parameter paths (Burn's names and layouts, as
    ``named_params()``: the parameters themselves, their gradients, ...) under PyTorch's
    state-dict names and layouts: transposed, fused and renamed as the module's adapters say,
    as fresh contiguous tensors. A key any of whose parts is missing or None maps to None;
    ``torch_only`` adds the PyTorch-only entries (``num_batches_tracked``)."""
    out: OrderedDict[str, torch.Tensor | None] = OrderedDict()
    for key, spec in _layout(module).items():
        if callable(spec):
            if torch_only:
                out[key] = spec()
            continue
        found = [values.get(p.burn_path) for p in spec]
        parts = [t for t in found if t is not None]
        if len(parts) < len(found):
            out[key] = None
            continue
        parts = [t.t() if p.transposed else t for t, p in zip(parts, spec)]
        out[key] = (parts[0].clone(memory_format=torch.contiguous_format) if len(parts) == 1
                    else torch.cat(parts, 0))
    return out


def _dense(key: str, t) -> torch.Tensor:
    """``t`` detached, once checked to be a dense tensor with values: TypeError for a
    non-tensor, ValueError naming ``key`` for a meta, sparse, nested, quantized or complex
    tensor (each message says how to get a dense one)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"state dict entry {key!r} must be a torch.Tensor, got {type(t).__name__}")
    if t.is_meta:
        raise ValueError(f"state dict entry {key!r} is a meta tensor (a shape without values); "
                         f"materialise the weights first (torch.load(..., map_location='cpu'), or "
                         f"load them into the torch model before taking its state_dict())")
    if t.is_nested:
        raise ValueError(f"state dict entry {key!r} is a nested tensor; convert it with "
                         f"torch.nested.to_padded_tensor(t, 0.0) first")
    if t.layout is not torch.strided:
        raise ValueError(f"state dict entry {key!r} is a {t.layout} tensor; burn_torch parameters "
                         f"are dense: pass t.to_dense()")
    if t.is_quantized:
        raise ValueError(f"state dict entry {key!r} is a quantized tensor ({t.dtype}); pass "
                         f"t.dequantize() (burn_torch quantizes with Tensor.quantize_dynamic)")
    if t.is_complex():
        raise ValueError(f"state dict entry {key!r} has the complex dtype {t.dtype}, which no "
                         f"burn_torch parameter holds")
    return t.detach()


def _cast(key: str, t: torch.Tensor, param: Param) -> "torch.Tensor | str":
    """``t`` as a fresh contiguous tensor of ``param``'s dtype, or why it cannot be: a Float
    parameter takes any real values; an Int parameter takes integer or bool values; a Bool
    parameter takes bool values (a cast that would truncate or round is refused)."""
    want = param.val().to_torch().dtype
    if (t.is_floating_point() and not want.is_floating_point) or (
            want is torch.bool and t.dtype is not torch.bool):
        return (f"{key}: a {t.dtype} tensor cannot be cast to the parameter's {want} without "
                f"losing values")
    return t.to(dtype=want, memory_format=torch.contiguous_format, copy=True)


class IncompatibleKeys(NamedTuple):
    """As PyTorch's ``load_state_dict`` result: the keys it lacked and the keys it did not use."""

    missing_keys: list[str]
    unexpected_keys: list[str]


def load_torch_state_dict(module: _M, state_dict: Mapping[str, torch.Tensor],
                          strict: bool = True) -> tuple[_M, IncompatibleKeys]:
    """Loads a PyTorch state dict; returns ``(loaded module, IncompatibleKeys)``.

    Any dense torch tensor loads, contiguous or not, on any device, of any real dtype: the
    values are copied (later changes to the torch tensors do not leak in), converted to Burn's
    layouts and cast to the dtype of the parameter they replace (any real values into a Float
    parameter, integer or bool values into an Int one, bool into a Bool one), then placed as
    [`Module.load_record`][burn_torch.module.module.Module.load_record] places them (the parameters
    keep their ids, devices, dtypes and trainability).

    Raises TypeError for an entry that is not a torch tensor, ValueError naming the key for a
    meta, sparse, nested, quantized or complex tensor, and RecordMismatchError, naming torch
    keys, when a shape differs, a cast would lose values (a float tensor for an Int parameter)
    or, with ``strict``, keys are missing or unexpected. The module is unchanged on any error.
    With ``strict=False`` missing parameters keep their values.
    """
    layout = _layout(module)
    expected = {k: spec for k, spec in layout.items() if not callable(spec)}
    missing = [k for k in expected if k not in state_dict]
    unexpected = [k for k in state_dict if k not in layout]
    params = dict(module.named_params())
    mismatched = []
    record = {}
    for key, spec in expected.items():
        if key not in state_dict:
            continue
        t = _dense(key, state_dict[key])
        shapes = [_torch_shape(params[p.burn_path], p.transposed) for p in spec]
        want = [sum(s[0] for s in shapes), *shapes[0][1:]] if len(shapes) > 1 else shapes[0]
        if list(t.shape) != want:
            mismatched.append(f"{key}: expected shape {want}, got {list(t.shape)}")
            continue
        pieces = torch.split(t, [s[0] for s in shapes]) if len(shapes) > 1 else [t]
        for p, piece in zip(spec, pieces):
            value = _cast(key, piece.t() if p.transposed else piece, params[p.burn_path])
            if isinstance(value, str):
                mismatched.append(value)
                break
            record[p.burn_path] = wrap(value, None)
    if mismatched or (strict and (missing or unexpected)):
        raise RecordMismatchError(LoadReport(missing, unexpected, mismatched), what="state dict")
    return load_record(module, record, strict=False), IncompatibleKeys(missing, unexpected)
