"""Detectors of autodiff idioms that depend on how values were made: backward of an unreduced
loss, a second backward through a consumed graph, custom ``autograd.Function``s, changing
``requires_grad`` of intermediates, Int and quantized tensors asked for gradients, and, in
ports, operands of different autodiff devices or checkpointing strategies.

Registered on import by ``burn_torch_check.detectors``.
"""
from __future__ import annotations

import ast

from .analysis import BURN, PARAM, Analysis, is_module, is_tensor
from .dataflow import assigned_value, chain, made_by, origin
from .detectors import at, at_name, detector, is_burn, is_true, keyword, torch_value
from .detectors_tensors import int_tensor


# ========================================================= unreduced losses ====
def _unreduced(a: Analysis, expr: ast.AST) -> bool:
    """Whether ``expr`` is a loss computed with ``reduction="none"`` (by a function, or by a
    module built so)."""
    made = origin(a, expr)
    if not isinstance(made, ast.Call):
        return False
    for call in (made, made_by(a, made.func)):
        if isinstance(call, ast.Call):
            reduction = keyword(call, "reduction")
            if reduction is not None and isinstance(reduction.value, ast.Constant) \
                    and reduction.value.value == "none":
                return True
    return False


@detector("unreduced_backward", ast.Attribute, idiom="`loss.backward()` of a loss with `reduction='none'`")
def _nonscalar_backward(node, a):
    call = a.parent.get(node)
    if node.attr != "backward" or not isinstance(call, ast.Call) or call.func is not node or call.args:
        return None
    if (torch_value(a, node.value) or is_burn(a, node.value)) and _unreduced(a, node.value):
        return at_name(node)
    return None


# ================================================ second backward, same graph ====
_CUTS = {"detach", "item", "tolist", "numpy", "without_autodiff", "into_scalar"}


def _uncut(expr: ast.AST):
    """The nodes of ``expr`` whose value flows into it through the graph: ``.detach()``,
    ``.data`` and conversions to numbers cut it."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS:
            continue
        if isinstance(node, ast.Attribute) and node.attr == "data":
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _records_graph(a: Analysis, value: ast.AST) -> bool:
    """Whether computing ``value`` records graph steps itself: it calls a module or reads a
    parameter (a constant such as ``torch.full(...)`` records nothing)."""
    return any(isinstance(n, ast.Call) and (is_module(a.kind(n.func)) or a.kind(n.func) == BURN
                                            and a.qualname(n.func) is None)
               or isinstance(n, (ast.Name, ast.Attribute)) and a.kind(n) == PARAM
               for n in _uncut(value))


def _dependencies(a: Analysis, expr: ast.AST, scope: ast.AST, depth: int = 0) -> set[ast.AST]:
    """The assignments of ``scope`` holding graph intermediates that ``expr`` is computed from,
    through names (see ``_uncut`` for what cuts the graph)."""
    found: set[ast.AST] = set()
    if depth > 12:
        return found
    for node in _uncut(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = assigned_value(a, node)
            if value is None or a.scope_of(value) is not scope or value in found:
                continue
            below = _dependencies(a, value, scope, depth + 1)
            if below or _records_graph(a, value):
                found |= below | {value}
    return found


def _backward_receivers(a: Analysis, scope: ast.AST) -> list[ast.Attribute]:
    calls = [n for n in ast.walk(scope) if isinstance(n, ast.Attribute) and n.attr == "backward"
             and isinstance(a.parent.get(n), ast.Call) and a.parent[n].func is n
             and a.scope_of(n) is scope]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))


@detector("backward_through_consumed_graph", ast.Attribute,
          idiom="a second `backward()` through intermediates an earlier backward consumed")
def _second_backward(node, a):
    if node.attr != "backward" or a.side_by_side or not (torch_value(a, node.value) or is_burn(a, node.value)):
        return None
    scope = a.scope_of(node)
    receivers = _backward_receivers(a, scope)
    if node not in receivers:
        return None
    mine = _dependencies(a, node.value, scope)
    for earlier in receivers[:receivers.index(node)]:
        if mine & _dependencies(a, earlier.value, scope):
            return at_name(node)
    return None


# =============================================================== Functions ====
@detector("autograd_function_class", ast.ClassDef,
          idiom="a `torch.autograd.Function` subclass (custom forward and backward)")
def _custom_function(node, a):
    return at(node) if node.name in a._function_classes else None


# ======================================================= requires_grad flags ====
_LEAF_MAKERS = {"require_grad", "requires_grad_", "detach", "clone", "set_require_grad"}


def _intermediate(a: Analysis, expr: ast.AST) -> bool:
    """Whether ``expr`` is computed from tensors by an operation (not created, not a leaf)."""
    made = origin(a, expr)
    if isinstance(made, (ast.BinOp, ast.UnaryOp)):
        return any(is_tensor(a.kind(s)) or a.kind(s) == BURN for s in ast.walk(made)
                   if isinstance(s, (ast.Name, ast.Call)))
    if isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) \
            and a.qualname(made.func) is None:
        return made.func.attr not in _LEAF_MAKERS and (is_tensor(a.kind(made.func.value))
                                                      or a.kind(made.func.value) == BURN)
    return False


def _flag_call(node: ast.Attribute, a: Analysis, names) -> ast.Call | None:
    call = a.parent.get(node)
    if node.attr in names and isinstance(call, ast.Call) and call.func is node:
        return call
    return None


@detector("intermediate_requires_grad_off", ast.Attribute,
          idiom="`h.requires_grad_(False)` of an intermediate (not a leaf)")
def _non_leaf(node, a):
    call = _flag_call(node, a, {"requires_grad_", "set_require_grad"})
    if call is None or a.side_by_side or not call.args:
        return None
    flag = call.args[0]
    if isinstance(flag, ast.Constant) and flag.value is False and _intermediate(a, node.value) \
            and (torch_value(a, node.value, strict=True) or is_burn(a, node.value)):
        return at_name(node)
    return None


@detector("integer_requires_grad", ast.Attribute, ast.Call,
          idiom="`t.requires_grad_()` / `requires_grad=True` on an Int tensor")
def _integer_gradients(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, ast.Call):
        q = a.qualname(node.func) or ""
        return at(node, (node.func,)) if q.startswith("torch.") and is_true(
            getattr(keyword(node, "requires_grad"), "value", None)) and int_tensor(a, node) else None
    call = _flag_call(node, a, {"requires_grad_", "require_grad", "set_require_grad"})
    if call is not None and (not call.args or is_true(call.args[0])) and int_tensor(a, node.value):
        return at_name(node)
    return None


_QUANTIZE = {"quantize_dynamic", "quantize", "quantize_per_tensor", "quantize_per_channel"}


def _quantized(a: Analysis, expr: ast.AST) -> bool:
    for link in chain(a, expr):
        if not isinstance(link, ast.Call):
            return False
        name = link.func.attr if isinstance(link.func, ast.Attribute) else ""
        if name == "dequantize":
            return False
        if name in _QUANTIZE:
            return True
    return False


@detector("quantized_requires_grad", ast.Attribute,
          idiom="`q.requires_grad_()` / `q.require_grad()` of a quantized tensor")
def _quantized_grad(node, a):
    call = _flag_call(node, a, {"requires_grad_", "require_grad", "set_require_grad"})
    if call is not None and not a.side_by_side and (not call.args or is_true(call.args[0])) \
            and _quantized(a, node.value):
        return at_name(node)
    return None


# ====================================================== devices of operands ====
def _creation_device(a: Analysis, expr: ast.AST) -> ast.AST | None:
    """The device argument of the ``Tensor.*`` creation ``expr`` comes from, if any."""
    for link in chain(a, expr):
        if isinstance(link, ast.Call) and (a.qualname(link.func) or "").startswith(
                ("burn_torch.Tensor.", "burn_torch.tensor.Tensor.")):
            device = keyword(link, "device")
            return device.value if device is not None else (link.args[-1] if link.args else None)
    return None


def _device_calls(a: Analysis, device: ast.AST) -> set[str]:
    """The method names called in making ``device`` (``autodiff``, ``gradient_checkpointing``)."""
    names: set[str] = set()
    for link in chain(a, device):
        if isinstance(link, ast.Call) and isinstance(link.func, ast.Attribute):
            names.add(link.func.attr)
            names |= _device_calls(a, link.func.value) if isinstance(link.func.value, ast.Name) else set()
    return names


def _operand_devices(a: Analysis, node: ast.BinOp) -> list[set[str]] | None:
    """In a port, the method names that made each operand's device, when both operands come
    from ``Tensor.*`` creations (else None)."""
    if not a.burn_file:
        return None
    out = []
    for side in (node.left, node.right):
        device = _creation_device(a, side)
        if device is None:
            return None
        out.append(_device_calls(a, device))
    return out


def _autodiff_device(calls: set[str]) -> bool:
    return "autodiff" in calls or "gradient_checkpointing" in calls


@detector("untracked_operand", ast.BinOp,
          idiom="a tensor made on a device without autodiff combined with a tracked one (a port)")
def _mixing_tracked(node, a):
    devices = _operand_devices(a, node)
    if devices is None or any("device" in d for d in devices):
        return None  # `x.device()`: the other operand's own device
    return at(node) if [_autodiff_device(d) for d in devices].count(True) == 1 else None


@detector("checkpointing_strategy_operands", ast.BinOp,
          idiom="operands made on devices with different checkpointing strategies (a port)")
def _strategy_mismatch(node, a):
    devices = _operand_devices(a, node)
    if devices is None or not all(_autodiff_device(d) for d in devices):
        return None
    return at(node) if ["gradient_checkpointing" in d for d in devices].count(True) == 1 else None
