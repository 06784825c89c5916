"""Detectors of tensor idioms: construction, indexing, operators, kinds, shapes and iteration.

Registered on import by ``burn_torch_check.detectors`` (after its own detectors, so a node
an earlier, more specific detector covers is not reported again here).
"""
from __future__ import annotations

import ast

from .analysis import BURN, LOADER, NUMPY, Analysis, Iter, is_module, is_tensor
from .dataflow import chain, loops_in, origin
from .detectors import (Fix, at, at_name, detector, int_literal, is_burn, keyword, method,
                        torch_value)

# ============================================================ construction ====
_LEGACY_TYPES = ("Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
                 "LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor")
_CONSTRUCTORS = {f"{root}.{name}" for root in ("torch", "torch.cuda") for name in _LEGACY_TYPES}
_BURN_TENSOR = {"burn_torch.Tensor", "burn_torch.tensor.Tensor"}


def _module_level_value(a: Analysis, name: str) -> ast.expr | None:
    """The value of ``name = value`` at module level, when the file assigns ``name`` once."""
    found = [n for n in a.tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]
    return found[0].value if len(found) == 1 else None


def _constructor(a: Analysis, func: ast.AST) -> bool:
    """Whether ``func`` names a legacy tensor type, also through a module-level alias such as
    ``FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor``."""
    if a.qualname(func) in _CONSTRUCTORS:
        return True
    if isinstance(func, ast.Name) and func.id not in a.imports:
        value = _module_level_value(a, func.id)
        branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        return value is not None and all(a.qualname(b) in _CONSTRUCTORS for b in branches)
    return False


@detector("tensor_type_constructor", ast.Call,
          idiom="`torch.Tensor(...)`, `torch.FloatTensor(...)` and the other type constructors")
def _tensor_constructor(node, a):
    if a.qualname(node.func) in _BURN_TENSOR:
        return at(node, (node.func,))
    if not a.side_by_side and _constructor(a, node.func):
        return at(node, (node.func,))
    return None


# ================================================================ indexing ====
# Methods whose torch result is a (values, indices) pair: `x.max(1)[1]` indexes the pair.
_PAIR_METHODS = {"max", "min", "sort", "topk", "kthvalue", "median", "mode", "unique", "lu",
                 "qr", "svd", "eig", "slogdet", "aminmax", "cummax", "cummin", "chunk", "split",
                 "unbind", "tensor_split"}


def _returns_pair(a: Analysis, expr: ast.AST) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    found = method(expr, a, _PAIR_METHODS)
    if found is not None:
        return True
    q = a.qualname(expr.func) or ""
    return q.rpartition(".")[2] in _PAIR_METHODS


def loader_item(a: Analysis, expr: ast.AST) -> bool:
    """Whether ``expr`` is a batch as a loader yields it (``batch`` in ``for batch in loader``,
    ``next(iter(loader))``): a tuple or list of tensors, not a tensor."""
    made = origin(a, expr)
    if isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id == "next":
        return True
    if not isinstance(expr, ast.Name):
        return False
    for loop in loops_in(a, a.scope_of(expr)):
        targets = [loop.target] if isinstance(loop.target, ast.Name) else [
            e for e in getattr(loop.target, "elts", ()) if isinstance(e, ast.Name)]
        if any(t.id == expr.id for t in targets) and any(
                a.kind(n) == LOADER for n in ast.walk(loop.iter)):
            return True
    return False


@detector("tensor_subscript", ast.Subscript, idiom="`x[i]`, `x[:, 1:3]`, `x[i] = v` on a tensor")
def _indexing(node, a):
    if _returns_pair(a, node.value) or loader_item(a, node.value):
        return None
    if torch_value(a, node.value, strict=True):
        return at(node)
    return None


# =============================================================== attributes ====
@detector("device_dtype_attribute", ast.Attribute, idiom="`x.device` / `x.dtype` read as attributes")
def _device_dtype(node, a):
    if node.attr not in ("device", "dtype") or not isinstance(node.ctx, ast.Load) \
            or a.qualname(node) is not None:
        return None
    parent = a.parent.get(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return None  # x.device(): burn_torch's form
    if torch_value(a, node.value, strict=True) or is_burn(a, node.value):
        return at_name(node)
    return None


# ================================================================ operators ====
@detector("pow_operator", ast.BinOp, idiom="`x ** 2` on a tensor")
def _pow(node, a):
    if not isinstance(node.op, ast.Pow):
        return None
    if any(torch_value(a, side, strict=True) or is_burn(a, side) for side in (node.left, node.right)):
        return at(node)
    return None


def _aliased(a: Analysis, target: ast.AST) -> bool:
    """Whether rebinding ``target`` leaves another name holding the old value: an attribute,
    an item, a function parameter not reassigned before, or a name assigned from another name."""
    if isinstance(target, ast.Attribute):
        return True
    if not isinstance(target, ast.Name):  # `x[i] += v`: item assignment, see indexing
        return False
    value = origin(a, target)
    if value is target:  # never assigned before in its scope: a parameter or a global
        scope = a.scope_of(target)
        args = getattr(scope, "args", None)
        return args is not None and target.id in [p.arg for p in (*args.posonlyargs, *args.args,
                                                                  *args.kwonlyargs)]
    return isinstance(value, (ast.Name, ast.Attribute))


@detector("tensor_augmented_assignment", ast.AugAssign,
          idiom="`x += y` on a tensor that another name (an attribute, an argument) also holds")
def _augmented(node, a):
    target = node.target
    if not (torch_value(a, target, strict=True) or is_burn(a, target)):
        return None
    return at(node) if _aliased(a, target) else None


# ===================================================================== kinds ====
_INT_DTYPES = {f"torch.{n}" for n in ("long", "int", "int8", "int16", "int32", "int64", "uint8",
                                       "short", "bool")}
_INT_METHODS = {"long", "int", "bool", "byte", "short", "char", "argmax", "argmin", "equal",
                "not_equal", "greater", "greater_equal", "lower", "lower_equal", "bool_not",
                "eq", "ne", "gt", "ge", "lt", "le", "logical_not", "isnan", "isinf"}
_INT_FUNCTIONS = {f"torch.{n}" for n in ("randint", "randint_like", "argmax", "argmin",
                                          "bincount", "nonzero", "multinomial", "randperm")}
_INT_CREATIONS = {"from_ints", "from_bools"}
# Methods that keep the kind of the tensor they are called on.
_KIND_KEEPING = {"sum", "prod", "max", "min", "abs", "neg", "cumsum", "clone", "detach", "to",
                 "cpu", "cuda", "squeeze", "unsqueeze", "view", "reshape", "flatten", "t",
                 "sum_dim", "squeeze_dim", "unsqueeze_dim", "permute", "expand", "repeat",
                 "flip", "contiguous"}


def _int_literals(node: ast.AST) -> bool:
    """A literal made of ints only (``[1, 2]``, ``[[0, 1]]``)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_int_literals(e) for e in node.elts)
    return int_literal(node)


def int_tensor(a: Analysis, expr: ast.AST) -> bool:
    """Whether ``expr`` is certainly an Int or Bool tensor (torch or burn_torch): a comparison
    of tensors, a ``.long()``/``.int()``/``argmax`` result, ``torch.randint``, a tensor built
    from int literals or with an integer ``dtype=``, and what keeps their kind (``.sum()``)."""
    for link in chain(a, expr):
        if isinstance(link, ast.Compare):
            return any(torch_value(a, s, strict=True) or is_burn(a, s)
                       for s in (link.left, *link.comparators))
        if not isinstance(link, ast.Call):
            return False
        dtype = keyword(link, "dtype")
        if dtype is not None:
            return a.qualname(dtype.value) in _INT_DTYPES
        q = a.qualname(link.func) or ""
        if q in _INT_FUNCTIONS or q.rpartition(".")[2] in _INT_CREATIONS:
            return True
        if q in ("torch.tensor", "torch.as_tensor", "torch.arange") and link.args:
            return all(_int_literals(x) for x in link.args)
        if isinstance(link.func, ast.Attribute) and q == "":
            name = link.func.attr
            if name in _INT_METHODS:
                return True
            if name == "to" and link.args:
                return a.qualname(link.args[0]) in _INT_DTYPES
            if name not in _KIND_KEEPING:
                return False
            continue
        return False
    return False


def _float_operand(a: Analysis, node: ast.AST) -> bool:
    """A float literal, or a tensor known to be a float one (not an Int tensor)."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return True
    return (is_tensor(a.kind(node)) or is_burn(a, node)) and not int_tensor(a, node) \
        and isinstance(origin(a, node), (ast.Call, ast.BinOp)) and _float_made(a, node)


def _float_made(a: Analysis, node: ast.AST) -> bool:
    """A tensor whose making says it is a float one: ``.float()``, ``torch.randn``, a module's
    output, ``Tensor.from_floats``."""
    for link in chain(a, node):
        if not isinstance(link, ast.Call):
            return False
        q = a.qualname(link.func) or ""
        if q.rpartition(".")[2] in ("randn", "rand", "randn_like", "rand_like", "from_floats",
                                    "normal", "float", "linspace"):
            return True
        if isinstance(link.func, ast.Attribute) and q == "" and link.func.attr in ("float", "double"):
            return True
        if is_module(a.kind(link.func)):
            return True
        if not (isinstance(link.func, ast.Attribute) and link.func.attr in _KIND_KEEPING):
            return False
    return False


@detector("integer_true_division", ast.BinOp, idiom="`t / n` of an Int tensor")
def _integer_division(node, a):
    if isinstance(node.op, ast.Div) and int_tensor(a, node.left) and not a.side_by_side \
            and (int_literal(node.right) or int_tensor(a, node.right)):
        return at(node)
    return None


@detector("integer_mean_call", ast.Call, idiom="`t.mean()` of an Int tensor")
def _integer_mean(node, a):
    name = method(node, a, {"mean", "mean_dim"})
    if name is not None and not a.side_by_side and int_tensor(a, name.value):
        return at_name(name)
    return None


@detector("mixed_kind_operator", ast.BinOp, idiom="an Int or Bool tensor combined with a float")
def _mixed_kind(node, a):
    if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) or a.side_by_side:
        return None
    for one, other in ((node.left, node.right), (node.right, node.left)):
        if int_tensor(a, one) and _float_operand(a, other):
            return at(node)
    return None


# ============================================================ pair operations ====
_PAIR_FUNCTIONS = {"torch.maximum", "torch.minimum", "torch.fmax", "torch.fmin"}


@detector("elementwise_max_pair", ast.Call,
          idiom="`torch.maximum(a, b)` / `torch.max(a, b)` / `a.max(b)` of two tensors")
def _max_pair(node, a):
    if a.side_by_side:
        return None
    q = a.qualname(node.func) or ""
    if q in _PAIR_FUNCTIONS and len(node.args) == 2:
        return at(node, (node.func,))
    if q in ("torch.max", "torch.min") and len(node.args) == 2 \
            and torch_value(a, node.args[1], strict=True):
        return at(node, (node.func,))
    name = method(node, a, {"max", "min", "maximum", "minimum"})
    if name is not None and len(node.args) == 1 and torch_value(a, name.value, strict=True) \
            and (name.attr.endswith("imum") or torch_value(a, node.args[0], strict=True)):
        return at_name(name)
    return None


def _topk_call(a: Analysis, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = method(node, a, {"topk"})
    if name is not None:
        return torch_value(a, name.value) or is_burn(a, name.value)
    return a.qualname(node.func) == "torch.topk" and not a.side_by_side


@detector("topk_indices_use", ast.Call, idiom="`values, indices = x.topk(k)` (the indices of topk)")
def _topk(node, a):
    if not _topk_call(a, node):
        return None
    parent = a.parent.get(node)
    unpacked = isinstance(parent, ast.Assign) and isinstance(parent.targets[0], (ast.Tuple, ast.List))
    indexed = isinstance(parent, ast.Subscript) and parent.value is node
    named = isinstance(parent, ast.Attribute) and parent.attr == "indices"
    if unpacked or indexed or named:
        return at_name(node.func, (node.func,)) if isinstance(node.func, ast.Attribute) \
            and a.qualname(node.func) is None else at(node, (node.func,))
    return None


# ==================================================================== shapes ====
_SHAPE_METHODS = {"reshape", "permute", "repeat", "expand", "flip", "tile"}
_NUMPY_FREE = {"permute", "expand"}  # numpy's arrays have no such method


def _single_number(node: ast.AST) -> bool:
    """A single argument that is a number, not a sequence: ``-1``, ``n * 2``, ``x.size(0)``."""
    if int_literal(node) or isinstance(node, ast.BinOp):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "size" and bool(node.args)


@detector("shape_as_arguments", ast.Call,
          idiom="`x.reshape(n, -1)`, `x.permute(0, 2, 1)`, `x.repeat(2, 1)`: sizes as separate arguments")
def _shape_varargs(node, a):
    name = method(node, a, _SHAPE_METHODS)
    if name is None or node.keywords or not node.args:
        return None
    args = node.args
    if len(args) == 1 and not (_single_number(args[0]) or isinstance(args[0], ast.Starred)):
        return None
    receiver = name.value
    if a.kind(receiver) == NUMPY or not (torch_value(a, receiver, strict=True) or is_burn(a, receiver)
                                         or (name.attr in _NUMPY_FREE and torch_value(a, receiver))):
        return None
    starred = any(isinstance(x, ast.Starred) for x in args)
    fix = None if starred else Fix(f"{name.attr}([{{args}}])")
    return at_name(name, fix=fix, hint=f"`{name.attr}` takes one list: x.{name.attr}([...])")


def _with_tensor_sibling(a: Analysis, node: ast.AST) -> bool:
    """Whether ``node`` is an operand of arithmetic whose other operands include a tensor
    (``data.rewards.flatten() + gamma * target_max``: the rewards are a tensor too)."""
    parent = a.parent.get(node)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp)):
        if isinstance(parent, ast.BinOp) and any(torch_value(a, n, strict=True)
                                                 for n in ast.walk(parent) if n is not node
                                                 and isinstance(n, (ast.Name, ast.Call))
                                                 and not isinstance(n, ast.Constant)):
            return True
        parent = a.parent.get(parent)
    return False


@detector("dim_omitted", ast.Call,
          idiom="`x.flatten()`, `x.flatten(1)`, `x.chunk(n)`, `x.split(n)` without the dims Burn requires")
def _omitted_dims(node, a):
    if a.side_by_side:
        return None
    q = a.qualname(node.func) or ""
    n_args = len(node.args) + len(node.keywords)
    if q == "torch.flatten" and n_args < 3:
        return at(node, (node.func,))
    if q == "torch.chunk" and n_args < 3 or q == "torch.split" and n_args < 3:
        return at(node, (node.func,))
    name = method(node, a, {"flatten", "chunk", "split"})
    if name is None:
        return None
    receiver = name.value
    known = torch_value(a, receiver, strict=True) or is_burn(a, receiver)
    if name.attr == "flatten" and n_args < 2 and keyword(node, "end_dim") is None:
        if known or (a.kind(receiver) != NUMPY and (node.args or _with_tensor_sibling(a, node))
                     and torch_value(a, receiver)):
            return at_name(name)
    elif name.attr in ("chunk", "split") and len(node.args) == 1 and keyword(node, "dim") is None \
            and known:
        return at_name(name)
    return None


# ================================================================= iteration ====
def _tensor_iterable(a: Analysis, expr: ast.AST) -> bool:
    if _returns_pair(a, expr) or loader_item(a, expr):
        return False  # `for part in x.split(1, dim=1)`: a tuple of tensors
    kind = a.kind(expr)
    return not isinstance(kind, Iter) and (torch_value(a, expr, strict=True) or kind == BURN
                                           and _burn_tensor(a, expr))


def _burn_tensor(a: Analysis, expr: ast.AST) -> bool:
    """A burn_torch value made by ``Tensor.*`` creation or a tensor method (not a module or a list)."""
    made = origin(a, expr)
    return isinstance(made, ast.Call) and (a.qualname(made.func) or "").startswith(
        ("burn_torch.Tensor.", "burn_torch.tensor.Tensor."))


@detector("tensor_iteration", ast.For, ast.comprehension, ast.Call,
          idiom="`for row in x`, `zip(x, y)`, `list(x)` over a tensor")
def _iteration(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, (ast.For, ast.comprehension)):
        return at(node.iter) if _tensor_iterable(a, node.iter) else None
    if isinstance(node.func, ast.Name) and node.func.id in ("zip", "enumerate", "list", "tuple",
                                                             "sorted", "iter") \
            and node.func.id not in a.imports:
        for arg in node.args:
            if _tensor_iterable(a, arg):
                return at(arg)
    return None


# ================================================== torch meets burn_torch ====
_TORCH_KINDS = ("tensor", "param", "numpy", "torch")


def _burn_argument(a: Analysis, arg: ast.AST) -> bool:
    kind = a.kind(arg)
    return kind == BURN or isinstance(kind, Iter) and kind.item == BURN


@detector("torch_value_meets_burn", ast.BinOp, ast.Call,
          idiom="an operator between a burn_torch tensor and a torch one, or a torch function given burn_torch tensors")
def _mixing(node, a):
    if not a.burn_file or a.side_by_side:
        return None
    if isinstance(node, ast.BinOp):
        kinds = {a.kind(node.left), a.kind(node.right)}
        return at(node) if BURN in kinds and kinds & set(_TORCH_KINDS) else None
    q = a.qualname(node.func) or ""
    if q.split(".")[0] == "torch" and any(_burn_argument(a, x) for x in
                                          (*node.args, *(k.value for k in node.keywords))):
        return at(node, (node.func,), hint=f"`{q}` takes torch tensors: call the burn_torch "
                                           "method or function instead, or convert with to_torch(x)")
    return None
