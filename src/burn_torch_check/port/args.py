"""Reading a torch call's arguments as source: binding them to torch's parameter names and
writing Burn's sequence arguments (``[3, 3]`` for a kernel size of 3, ``[a, b]`` for varargs
shapes). libcst nodes in, source strings out; no torch."""
from __future__ import annotations

from typing import Callable, Sequence

import libcst as cst


class Unsupported(Exception):
    """A call the table has no translation for (an argument it cannot bind or keep)."""


def bind(call: cst.Call, names: Sequence[str], code: Callable[[cst.CSTNode], str],
         ignored: Sequence[str] = ()) -> dict[str, str]:
    """``{parameter: argument source}`` for ``call`` against torch's parameter ``names``
    (positional order). Raises Unsupported for ``*args``/``**kwargs`` or an unknown keyword;
    keywords in ``ignored`` (``inplace``, ``device``, ``dtype`` handled elsewhere) are dropped."""
    bound: dict[str, str] = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            raise Unsupported("a *args/**kwargs argument")
        if arg.keyword is None:
            if i >= len(names):
                raise Unsupported(f"more than {len(names)} positional arguments")
            bound[names[i]] = code(arg.value)
        else:
            key = arg.keyword.value
            if key in ignored:
                continue
            if key not in names:
                raise Unsupported(f"argument {key}=")
            bound[key] = code(arg.value)
    return bound


def int_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
        and isinstance(node.expression, cst.Integer)


def pair(node: cst.BaseExpression | None, code: Callable[[cst.CSTNode], str], n: int = 2) -> str | None:
    """Burn's ``[a, b]`` for torch's ``int or tuple`` argument: ``[3, 3]`` for ``3``, ``[1, 2]``
    for ``(1, 2)``, ``ported.pair(k, 2)`` (a runtime helper) for an expression of unknown shape."""
    if node is None:
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        return "[" + ", ".join(code(e.value) for e in node.elements) + "]"
    if int_literal(node) or isinstance(node, cst.BinaryOperation):
        return "[" + ", ".join([code(node)] * n) + "]"
    return f"ported.pair({code(node)}, {n})"


def sequence(args: Sequence[cst.Arg], code: Callable[[cst.CSTNode], str]) -> str:
    """Burn's one sequence argument for torch's varargs (``view(2, -1)`` → ``[2, -1]``): a
    single tuple/list/``size()`` argument passes as it is, a ``*shape`` as ``[*shape]``, and a
    name that may hold an int or a sequence as ``ported.shape(name)`` (a runtime helper)."""
    if len(args) == 1 and not args[0].star:
        value = args[0].value
        if isinstance(value, (cst.Tuple, cst.List)):
            return "[" + ", ".join(code(e.value) for e in value.elements) + "]"
        if isinstance(value, (cst.Integer, cst.UnaryOperation, cst.BinaryOperation)):
            return f"[{code(value)}]"
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and value.func.attr.value in ("size", "dims") and not value.args:
            return code(value)
        return f"ported.shape({code(value)})"  # an int or a sequence: decided at run time
    return "[" + ", ".join(("*" if a.star else "") + code(a.value) for a in args) + "]"


def literal(node: cst.BaseExpression | None) -> object:
    """The value of a literal argument (int, float, str, bool, None), else ``...``."""
    if node is None:
        return ...
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression)
        return -inner if isinstance(inner, (int, float)) else ...
    return ...


def arg_node(call: cst.Call, names: Sequence[str], name: str) -> cst.BaseExpression | None:
    """The node passed for torch parameter ``name`` (by position in ``names`` or keyword)."""
    for i, arg in enumerate(call.args):
        if arg.keyword is None and not arg.star and i < len(names) and names[i] == name:
            return arg.value
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None
