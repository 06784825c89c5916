"""Detectors of module idioms: calling and building layers, initialisation, buffers, tied and
target networks, recurrent layers, attention masks, synchronised batch norm, rotate-half RoPE.

Registered on import by ``burn_torch_check.detectors``.
"""
from __future__ import annotations

import ast

from .analysis import BURN, UNKNOWN, Analysis, is_module
from .dataflow import made_by, origin
from .detectors import (Fix, Hit, at, at_name, detector, function, function_detector,
                        keyword, method, torch_object)
from .methods import stored as stored_methods


# ==================================================================== calls ====
def _constructed(a: Analysis, func: ast.AST) -> str | None:
    """The qualified name (or the file's class name) of what built the module ``func`` holds
    (``torch.nn.LSTM`` for ``self.lstm = nn.LSTM(...)``), or None when it is not known."""
    made = made_by(a, func)
    if not isinstance(made, ast.Call):
        return None
    q = a.qualname(made.func)
    if q is not None:
        return q
    return made.func.id if isinstance(made.func, ast.Name) and made.func.id in a.classes else None


def _burn_module_call(a: Analysis, node: ast.Call) -> bool:
    """``model(x)`` in a port: a call of a burn_torch module, one built by
    ``XConfig(...).init(device)`` or by a class of the file."""
    func = node.func
    if a.qualname(func) is not None or a.kind(func) != BURN:
        return False
    if isinstance(func, ast.Name) and func.id in a.functions:
        return False
    made = made_by(a, func)
    return isinstance(made, ast.Call) and (
        isinstance(made.func, ast.Attribute) and made.func.attr == "init"
        or isinstance(made.func, ast.Name) and made.func.id in a.classes)


def _certain_module(a: Analysis, func: ast.AST) -> bool:
    """Whether ``func`` certainly holds a module (built here by a module class), not merely a
    value named like one: only then is ``.forward`` a certain rewrite."""
    made = _constructed(a, func)
    if made is None:
        return False
    if made in a.classes:
        return isinstance(a.instances.get(func), str) or is_module(a.kind(func))
    return made.startswith("torch.nn.") and made.rpartition(".")[2][:1].isupper() \
        and not made.startswith("torch.nn.functional.")


@detector("module_called", ast.Call, idiom="`model(x)`, `self.fc1(x)`, `criterion(out, y)` (calling a module)")
def _module_call(node, a):
    func = node.func
    if isinstance(func, (ast.Call, ast.Lambda)) or a.qualname(func) is not None:
        return None
    if _burn_module_call(a, node):
        fix = Fix("forward({args})", call=True)
    elif a.side_by_side or not is_module(a.kind(func)):
        return None
    else:
        fix = Fix("forward({args})", call=True) if _certain_module(a, func) else None
    # shared: the same call may be another idiom too (an LSTM given a torch-ordered state)
    return Hit(func.lineno, func.col_offset + 1, (), None, shared=True, fix=fix)


# ================================================================ building ====
_OWN_ENTRIES = {"LSTM", "GRU", "RMSNorm", "Hardsigmoid", "KLDivLoss", "NLLLoss", "BCELoss",
                "BCEWithLogitsLoss", "SyncBatchNorm"}


@detector("layer_built_from_arguments", ast.Call,
          idiom="`nn.Linear(4, 128)`, `nn.Conv2d(...)`: a torch layer built from its arguments")
def _constructor_arguments(node, a):
    q = a.qualname(node.func) or ""
    if not q.startswith("torch.nn.") or a.side_by_side or not (node.args or node.keywords):
        return None
    name = q.rpartition(".")[2]
    if q.count(".") != 2 and not q.startswith("torch.nn.modules."):
        return None
    if name in _OWN_ENTRIES or name not in stored_methods()["configured_layers"]:
        return None
    return at(node, (node.func,), hint=f"build it from its config: nn.{name}Config(...).init(device)")


# ============================================================ initialisation ====
@detector("module_apply_or_init", ast.Call,
          idiom="`model.apply(init_fn)` and `torch.nn.init.*_(...)`")
def _apply_init(node, a):
    q = a.qualname(node.func) or ""
    if q.startswith("torch.nn.init.") and q.endswith("_") and not a.side_by_side:
        return at(node, (node.func,))
    name = method(node, a, {"apply"})
    if name is not None and len(node.args) == 1 and not node.keywords \
            and (torch_object(a, name.value, modules=True) and a.kind(name.value) != UNKNOWN
                 or a.kind(name.value) == BURN):
        return at_name(name)
    return None


@detector("register_buffer_call", ast.Call, idiom="`self.register_buffer(name, t)`")
def _buffer(node, a):
    name = method(node, a, {"register_buffer"})
    if name is not None and not a.side_by_side:
        return at_name(name)
    return None


# ==================================================== tied and target networks ====
@detector("weight_tie_assign", ast.Assign, idiom="`self.head.weight = self.embed.weight` (weight tying)")
def _weight_tying(node, a):
    if a.side_by_side or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Attribute) and target.attr == "weight" \
            and isinstance(value, ast.Attribute) and value.attr == "weight" \
            and isinstance(value.value, (ast.Attribute, ast.Name)):
        return at(node, (target, value))
    return None


def _parameter_lists(a: Analysis, call: ast.AST) -> bool:
    """``zip(a.parameters(), b.parameters())`` (or ``state_dict().values()``) of two modules."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "zip"
            and len(call.args) == 2):
        return False
    return all(method(arg, a, {"parameters", "values"}) is not None for arg in call.args)


def _writes_in_place(body) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and (n.func.attr.endswith("_") and not n.func.attr.startswith("_"))
               or isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "data"
                                                    for t in n.targets)
               for stmt in body for n in ast.walk(stmt))


@detector("target_network_update", ast.For, ast.Call,
          idiom="`copy.deepcopy(model)` and the loop updating a target network's parameters in place")
def _target_network(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, ast.For):
        if _parameter_lists(a, node.iter) and _writes_in_place(node.body):
            return at(node)
        return None
    if a.qualname(node.func) == "copy.deepcopy" and len(node.args) == 1:
        kind = a.kind(node.args[0])
        if is_module(kind) or kind == BURN and _burn_module_value(a, node.args[0]):
            return at(node, (node.func,))
    return None


def _burn_module_value(a: Analysis, expr: ast.AST) -> bool:
    made = origin(a, expr)
    if isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) \
            and made.func.attr in ("init", "train", "valid", "no_grad"):
        return True
    return isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in a.classes


# ========================================================== recurrent layers ====
_LSTM = {"torch.nn.LSTM", "torch.nn.modules.rnn.LSTM"}


@detector("lstm_without_batch_first", ast.Call, idiom="`nn.LSTM(...)` without `batch_first=True`")
def _lstm_batch_first(node, a):
    if not function(node, a, _LSTM):
        return None
    batch_first = keyword(node, "batch_first")
    if batch_first is not None and isinstance(batch_first.value, ast.Constant) \
            and batch_first.value.value is True:
        return None
    if batch_first is None and len(node.args) >= 6:
        return None  # passed positionally (input, hidden, layers, bias, batch_first...)
    return Hit(node.lineno, node.col_offset + 1, (), "batch_first defaults to True in LstmConfig: "
               "with_batch_first(False) for [seq, batch, feature] inputs", shared=True)


@detector("lstm_num_layers", ast.Call, idiom="`nn.LSTM(d_in, d_hidden, num_layers)` (several layers)")
def _lstm_layers(node, a):
    if not function(node, a, _LSTM):
        return None
    layers = keyword(node, "num_layers")
    layers = layers.value if layers is not None else (node.args[2] if len(node.args) > 2 else None)
    if layers is None or isinstance(layers, ast.Constant) and layers.value == 1:
        return None
    return at(node, (node.func,))


def _lstm_module(a: Analysis, func: ast.AST) -> bool:
    return _constructed(a, func) in _LSTM


@detector("lstm_state_tuple", ast.Call,
          idiom="`out, (h, c) = lstm(x, (h0, c0))` (the LSTM state as an (h, c) tuple)")
def _lstm_state(node, a):
    if a.side_by_side or not _lstm_module(a, node.func):
        return None
    passed = len(node.args) > 1 and isinstance(node.args[1], ast.Tuple) and len(node.args[1].elts) == 2
    parent = a.parent.get(node)
    unpacked = isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
        and len(parent.targets[0].elts) == 2 and isinstance(parent.targets[0].elts[1], ast.Tuple)
    if passed or unpacked:
        return Hit(node.lineno, node.col_offset + 1, (), None, shared=True)
    return None


# ================================================================ attention ====
@detector("sdpa_attention_mask", ast.Call,
          idiom="`F.scaled_dot_product_attention(q, k, v, attn_mask=keep)`")
def _attention_mask(node, a):
    if not function(node, a, {"torch.nn.functional.scaled_dot_product_attention"}):
        return None
    mask = keyword(node, "attn_mask")
    mask = mask.value if mask is not None else (node.args[3] if len(node.args) > 3 else None)
    if mask is None or isinstance(mask, ast.Constant) and mask.value is None:
        return None
    return at(node, (node.func,))


function_detector("sync_batch_norm_call",
                  {"torch.nn.SyncBatchNorm", "torch.nn.SyncBatchNorm.convert_sync_batchnorm",
                   "torch.nn.modules.batchnorm.SyncBatchNorm"},
                  idiom="`nn.SyncBatchNorm(...)` / `nn.SyncBatchNorm.convert_sync_batchnorm(model)`")
