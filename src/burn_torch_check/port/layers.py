"""The layer rows' argument rules: for each ``torch.nn`` class the table translates, its row, its
constructor's parameter names, and how the bound arguments become the row's template fields
(torch's defaults written out where Burn's differ). Torch-free."""
from __future__ import annotations

from typing import Callable

import libcst as cst

from .args import Unsupported, arg_node, bind, literal, pair

Code = Callable[[cst.CSTNode], str]

CONV = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias",
        "padding_mode")
POOL = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
RNN = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional")

#: torch class → (row id, torch parameter names, ignored keywords)
LAYERS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "torch.nn.Linear": ("linear", ("in_features", "out_features", "bias"), ("device", "dtype")),
    "torch.nn.Conv1d": ("conv1d", CONV, ("device", "dtype")),
    "torch.nn.Conv2d": ("conv2d", CONV, ("device", "dtype")),
    "torch.nn.ConvTranspose2d": ("conv_transpose2d", ("in_channels", "out_channels", "kernel_size", "stride",
                                 "padding", "output_padding", "groups", "bias", "dilation", "padding_mode"),
                                 ("device", "dtype")),
    "torch.nn.BatchNorm1d": ("batch_norm", ("num_features", "eps", "momentum", "affine", "track_running_stats"),
                             ("device", "dtype")),
    "torch.nn.BatchNorm2d": ("batch_norm", ("num_features", "eps", "momentum", "affine", "track_running_stats"),
                             ("device", "dtype")),
    "torch.nn.LayerNorm": ("layer_norm", ("normalized_shape", "eps", "elementwise_affine", "bias"),
                           ("device", "dtype")),
    "torch.nn.GroupNorm": ("group_norm", ("num_groups", "num_channels", "eps", "affine"), ("device", "dtype")),
    "torch.nn.Embedding": ("embedding", ("num_embeddings", "embedding_dim", "padding_idx", "max_norm"),
                           ("device", "dtype")),
    "torch.nn.LSTM": ("lstm", RNN, ("device", "dtype")),
    "torch.nn.GRU": ("gru", RNN, ("device", "dtype")),
    "torch.nn.RNN": ("rnn", ("input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first",
                             "dropout", "bidirectional"), ("device", "dtype")),
    "torch.nn.Dropout": ("dropout", ("p", "inplace"), ("inplace",)),
    "torch.nn.ReLU": ("activation_layer", ("inplace",), ("inplace",)),
    "torch.nn.Sigmoid": ("activation_layer", (), ()),
    "torch.nn.Tanh": ("activation_layer", (), ()),
    "torch.nn.GELU": ("activation_layer", ("approximate",), ()),
    "torch.nn.SiLU": ("activation_layer", ("inplace",), ("inplace",)),
    "torch.nn.LeakyReLU": ("leaky_relu_layer", ("negative_slope", "inplace"), ("inplace",)),
    "torch.nn.MaxPool2d": ("max_pool2d", POOL, ()),
    "torch.nn.AvgPool2d": ("avg_pool2d", ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                          "divisor_override"), ()),
    "torch.nn.AdaptiveAvgPool2d": ("adaptive_avg_pool2d", ("output_size",), ()),
    "torch.nn.Flatten": ("flatten_layer", ("start_dim", "end_dim"), ()),
    "torch.nn.Identity": ("identity", (), ()),
    "torch.nn.CrossEntropyLoss": ("cross_entropy", ("weight", "size_average", "ignore_index", "reduce",
                                                    "reduction", "label_smoothing"), ()),
    "torch.nn.NLLLoss": ("nll_loss", ("weight", "size_average", "ignore_index", "reduce", "reduction"), ()),
    "torch.nn.MSELoss": ("mse_loss", ("size_average", "reduce", "reduction"), ()),
}

_ACTIVATION_CLASS = {"torch.nn.ReLU": "Relu", "torch.nn.Sigmoid": "Sigmoid", "torch.nn.Tanh": "Tanh",
                     "torch.nn.GELU": "Gelu", "torch.nn.SiLU": "Silu"}


def _padding2d(node: cst.BaseExpression | None, code: Code) -> str | None:
    value = literal(node)
    if node is None or value == 0:
        return None
    if value == "same":
        return "nn.PaddingConfig2d.same()"
    if value == "valid":
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        return f"nn.PaddingConfig2d.explicit({', '.join(code(e.value) for e in node.elements)})"
    if isinstance(value, int) or isinstance(node, cst.BinaryOperation):
        return f"nn.PaddingConfig2d.explicit({code(node)}, {code(node)})"
    return f"nn.PaddingConfig2d.explicit(*ported.pair({code(node)}, 2))"


def _only(bound: dict, name: str, allowed: tuple) -> None:
    """Raises Unsupported when ``name`` is given with a literal value outside ``allowed`` (or a
    non-literal value)."""
    if name in bound and bound[name] not in allowed:
        raise Unsupported(f"{name}={bound[name]}")


def layer_fields(qualname: str, call: cst.Call, code: Code) -> tuple[str, dict[str, str | None]]:
    """(row id, template fields) for the constructor call of torch layer ``qualname``. Raises
    Unsupported for a setting the Burn layer does not have (the line is then left marked)."""
    row_id, names, ignored = LAYERS[qualname]
    bound = bind(call, names, code, ignored)
    node = lambda n: arg_node(call, names, n)  # noqa: E731 - a one-line accessor
    f: dict[str, str | None] = dict(bound)
    if row_id in ("conv1d", "conv2d", "conv_transpose2d"):
        _only(bound, "padding_mode", ("'zeros'", '"zeros"'))
        f.pop("padding_mode", None)
        if row_id == "conv1d":
            if literal(node("padding")) in ("same", "valid"):
                raise Unsupported("a string padding")
            if literal(node("padding")) == 0:
                f["padding"] = None
        else:
            f["kernel_size"] = pair(node("kernel_size"), code)
            f["stride"] = None if literal(node("stride")) == 1 else pair(node("stride"), code)
            f["dilation"] = None if literal(node("dilation")) == 1 else pair(node("dilation"), code)
            if row_id == "conv2d":
                f["padding"] = _padding2d(node("padding"), code)
            else:
                f["padding"] = None if literal(node("padding")) == 0 else pair(node("padding"), code)
                f["output_padding"] = pair(node("output_padding"), code)
        if literal(node("groups")) == 1:
            f["groups"] = None
    elif row_id == "batch_norm":
        _only(bound, "affine", ("True",))
        _only(bound, "track_running_stats", ("True",))
        if literal(node("momentum")) is None:
            raise Unsupported("momentum=None (a cumulative average)")
        f.pop("affine", None), f.pop("track_running_stats", None)
    elif row_id == "layer_norm":
        _only(bound, "elementwise_affine", ("True",))
        f.pop("elementwise_affine", None)
        shape = node("normalized_shape")
        if isinstance(shape, (cst.Tuple, cst.List)):
            if len(shape.elements) != 1:
                raise Unsupported("a normalized_shape over several dims")
            f["normalized_shape"] = code(shape.elements[0].value)
    elif row_id == "group_norm":
        pass
    elif row_id == "embedding":
        if "padding_idx" in bound or "max_norm" in bound:
            raise Unsupported("padding_idx/max_norm (no Burn counterpart)")
    elif row_id in ("lstm", "gru", "rnn"):
        if row_id == "rnn":
            activation = literal(node("nonlinearity"))
            if activation not in (..., "tanh", "relu"):
                raise Unsupported(f"nonlinearity={bound['nonlinearity']}")
            f["activation"] = "nn.ActivationConfig.relu()" if activation == "relu" else None
            f.pop("nonlinearity", None)
        direction = literal(node("bidirectional"))
        if "bidirectional" in bound and not (direction is False or (direction is True and row_id == "lstm")):
            raise Unsupported(f"bidirectional={bound['bidirectional']}")
        bidirectional = literal(node("bidirectional")) is True
        f["bias"] = bound.get("bias", "True")
        f["batch_first"] = bound.get("batch_first", "False")
        f["dropout"] = bound.get("dropout", "0.0")
        f["num_layers"] = bound.get("num_layers", "1")
        f["config"] = "BiLstmConfig" if bidirectional else "LstmConfig"
        f["width"] = f"2 * {f['hidden_size']}" if bidirectional else f["hidden_size"]
        if row_id == "lstm" and ("num_layers" in bound or bidirectional):
            row_id = "lstm_layers"
    elif row_id == "dropout":
        f["p"] = bound.get("p", "0.5")
    elif row_id == "activation_layer":
        f["burn_class"] = _ACTIVATION_CLASS[qualname]
        f.pop("inplace", None)
        if literal(node("approximate")) not in (..., "none"):
            raise Unsupported(f"approximate={bound['approximate']} (write nn.Gelu(True) for 'tanh')")
        f.pop("approximate", None)
    elif row_id == "leaky_relu_layer":
        f["negative_slope"] = bound.get("negative_slope", "0.01")
    elif row_id in ("max_pool2d", "avg_pool2d"):
        _only(bound, "return_indices", ("False",))
        if "divisor_override" in bound:
            raise Unsupported("divisor_override")
        f["kernel_size"] = pair(node("kernel_size"), code)
        stride = node("stride")
        f["stride"] = f["kernel_size"] if stride is None or literal(stride) is None else pair(stride, code)
        f["padding"] = _padding2d(node("padding"), code)
        f["dilation"] = None if literal(node("dilation")) in (..., 1) else pair(node("dilation"), code)
    elif row_id == "adaptive_avg_pool2d":
        f["output_size"] = pair(node("output_size"), code)
    elif row_id == "flatten_layer":
        f["start_dim"] = bound.get("start_dim", "1")
        f["end_dim"] = bound.get("end_dim", "-1")
    elif row_id in ("cross_entropy", "nll_loss", "mse_loss"):
        for setting in ("weight", "size_average", "reduce", "ignore_index", "pos_weight"):
            if setting in bound:
                raise Unsupported(f"{setting}=")
        reduction = literal(node("reduction"))
        if reduction not in (..., "mean"):
            raise Unsupported(f"reduction={bound['reduction']}")
        f.pop("reduction", None)
    return row_id, f
