"""The porting checker's detectors: each finds one PyTorch idiom in an analysed source file.

A detector looks at one kind of AST node, with the file's ``Analysis`` (what
each expression is: a module, a parameter, an intermediate tensor, a numpy array, a burn_torch
value...), and returns a ``Hit`` (where the idiom is, which nodes it covers, optionally a
more specific porting hint and a certain rewrite) or None. Catalog entries name the detectors
that find their idiom (``DETECTORS`` in ``compat/<category>/<id>.py``); the checker runs only
those. The detectors of each area live in ``detectors_<area>.py`` and register on import, which
the package's ``__init__`` does after this module (so the idioms here cover their nodes first).
Detectors run in registration order and a node covered by an earlier hit is not examined again,
so the specific idioms (``x.grad is None``, ``p.grad.clamp_(...)``) are registered before the
general ones (``.grad`` reads, methods ending in ``_``).

What a value is decides what is reported: ``.to(device)`` moves a module
(``module_to_device_fork``) or a leaf (``to_device_records_op``) and is nothing to port on an
input batch; ``x.detach()`` and ``x.clone()`` only differ on leaves; ``x.sum()`` only where
the result's shape is used; ``torch.from_numpy(a)`` only where the array or the tensor is
mutated afterwards. In a file that imports burn_torch (a port, or a side-by-side file) only
misuses of burn_torch values are reported (a discarded ``model.train()`` or ``loss.backward()``,
``x.grad`` read as an attribute); the torch code beside them is left alone.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterable

from .analysis import (BURN, FOREIGN, LINEAR, LOADER, NUMPY, OPTIMIZER, OTHER, PARAM, SCALER, SCHEDULER,
                       TENSOR, UNKNOWN, Analysis, Iter, is_module, is_tensor)
from .dataflow import made_by
from .methods import stored as stored_methods


@dataclass(frozen=True)
class Fix:
    """A certain rewrite of the call whose method name the hit points at: the call
    ``<receiver>.<name>(<args>)`` becomes ``<receiver>.<template>`` with ``{args}`` the
    arguments' source and ``{0}``, ``{1}``... each argument's; ``rebind`` makes the statement
    ``<receiver> = <receiver>.<template>``; ``call`` rewrites the call ``<f>(<args>)`` whose
    function starts where the hit is into ``<f>.<template>`` (``model(x)`` → ``model.forward(x)``)."""

    template: str
    rebind: bool = False
    call: bool = False


@dataclass(frozen=True)
class Hit:
    """A found idiom: its 1-based line and column, the nodes it covers besides the matched one
    (which it covers too unless ``shared``), an optional hint replacing the entry's recipe and
    an optional certain rewrite."""

    line: int
    col: int
    covers: tuple[ast.AST, ...] = ()
    hint: str | None = None
    shared: bool = False
    fix: Fix | None = None


@dataclass(frozen=True)
class Detector:
    name: str
    node_types: tuple[type, ...]
    match: Callable[[ast.AST, Analysis], "Hit | None"]
    idiom: str  # the PyTorch idiom, as the guide names it


DETECTORS: dict[str, Detector] = {}


def detector(name: str, *node_types: type, idiom: str):
    """Registers the decorated ``match(node, analysis)`` as detector ``name``."""
    def register(match):
        if name in DETECTORS:
            raise ValueError(f"detector {name!r} registered twice")
        DETECTORS[name] = Detector(name, node_types, match, idiom)
        return match
    return register


def run_detectors(tree: ast.Module, names: Iterable[str]) -> list[tuple[str, Hit]]:
    """Runs the named detectors (in registration order) over ``tree``; returns (name, hit) pairs.

    Raises KeyError for an unknown detector name."""
    wanted = set(names)
    unknown = wanted - DETECTORS.keys()
    if unknown:
        raise KeyError(f"unknown detectors: {sorted(unknown)}")
    analysis = Analysis(tree)
    by_type: dict[type, list[ast.AST]] = {}
    for node in ast.walk(tree):
        by_type.setdefault(type(node), []).append(node)
    covered: set[ast.AST] = set()
    hits = []
    for det in DETECTORS.values():
        if det.name not in wanted:
            continue
        for node_type in det.node_types:
            for node in by_type.get(node_type, ()):
                if node in covered:
                    continue
                hit = det.match(node, analysis)
                if hit is not None and not analysis.in_data_pipeline(node):
                    if not hit.shared:
                        covered.add(node)
                    covered.update(hit.covers)
                    hits.append((det.name, hit))
    return hits


# ============================================================================== helpers ====
def at(node: ast.AST, covers: tuple = (), hint: str | None = None) -> Hit:
    """A hit at the start of ``node``."""
    return Hit(node.lineno, node.col_offset + 1, covers, hint)


def at_name(attr: ast.Attribute, covers: tuple = (), hint: str | None = None,
            fix: Fix | None = None) -> Hit:
    """A hit at the attribute name of ``attr`` (the ``grad`` of ``x.grad``)."""
    return Hit(attr.end_lineno, attr.end_col_offset - len(attr.attr) + 1, covers, hint, fix=fix)


def torch_value(a: Analysis, expr: ast.AST, strict: bool = False) -> bool:
    """Whether ``expr`` may be a torch tensor the port must change: a known tensor, or (unless
    ``strict``) a value of unknown type. In a file that imports burn_torch, values made by torch
    are reference code (a side-by-side comparison) and only values of unknown type count."""
    kind = a.kind(expr)
    if a.side_by_side:
        return not strict and kind == UNKNOWN
    return is_tensor(kind) or (not strict and kind == UNKNOWN)


def torch_object(a: Analysis, expr: ast.AST, *kinds, modules: bool = False) -> bool:
    """Whether ``expr`` is (or, being of unknown type, may be) one of the torch ``kinds`` (or,
    with ``modules``, a module); in a file that imports burn_torch, only a value of unknown type."""
    kind = a.kind(expr)
    if a.side_by_side:
        return kind == UNKNOWN
    return kind == UNKNOWN or kind in kinds or (modules and is_module(kind))


def is_burn(a: Analysis, expr: ast.AST) -> bool:
    return a.kind(expr) == BURN


def method_call(node: ast.AST, names) -> ast.Attribute | None:
    """The ``.name`` of a call ``<value>.name(...)`` with name in ``names``, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names:
        return node.func
    return None


def method(node: ast.AST, a: Analysis, names) -> ast.Attribute | None:
    """The ``.name`` of a call ``<value>.name(...)`` on a value (not an imported module)."""
    found = method_call(node, names)
    return found if found is not None and a.qualname(found) is None else None


def function(node: ast.AST, a: Analysis, qualnames) -> bool:
    """Whether ``node`` calls one of the imported functions ``qualnames``."""
    return isinstance(node, ast.Call) and a.qualname(node.func) in qualnames and not a.side_by_side


def attribute(node: ast.AST, a: Analysis, name: str, ctx: type = ast.Load) -> bool:
    """Whether ``node`` is ``<value>.name`` in context ``ctx`` on a value (not a module)."""
    return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ctx) \
        and a.qualname(node) is None


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def is_called(a: Analysis, attr: ast.Attribute) -> bool:
    """Whether ``attr`` is the function of a call (``x.grad(grads)``, burn_torch's form)."""
    parent = a.parent.get(attr)
    return isinstance(parent, ast.Call) and parent.func is attr


def grad_of(node: ast.AST, a: Analysis) -> bool:
    """Whether ``node`` reads ``<value>.grad`` (possibly through ``.data``) as an attribute."""
    if attribute(node, a, "data") and attribute(node.value, a, "grad"):
        node = node.value
    return attribute(node, a, "grad") and (torch_value(a, node.value) or is_burn(a, node.value)) \
        and not is_called(a, node)


def grad_attrs(node: ast.AST, a: Analysis) -> tuple[ast.AST, ...]:
    """Every ``.grad`` and ``.data`` attribute inside ``node`` (what a gradient update covers)."""
    return tuple(n for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr in ("grad", "data"))


def function_detector(name: str, qualnames: set[str], idiom: str) -> None:
    """Registers detector ``name``: a call of one of the imported functions ``qualnames``, hit at
    the call (which covers the function's name)."""
    def match(node, a):
        return at(node, (node.func,)) if function(node, a, qualnames) else None
    detector(name, ast.Call, idiom=idiom)(match)


def int_literal(node: ast.AST) -> bool:
    """An int literal, possibly negated (``2``, ``-1``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _source(node: ast.AST) -> str:
    return ast.unparse(node)


# ==================================================================== autodiff idioms ====
def tensor_backward(a: Analysis, call: ast.Call) -> bool:
    """Whether ``<x>.backward(...)`` may be a tensor's backward: ``x`` is a torch tensor, or of
    unknown type and called without a positional argument (``accelerator.backward(loss)``,
    ``mp_trainer.backward(loss)`` take the loss: they are helpers, not tensors)."""
    receiver = call.func.value
    if torch_value(a, receiver, strict=True):
        return True
    return torch_value(a, receiver) and not call.args


def _autodiff_call(a: Analysis, call: ast.AST) -> bool:
    """``x.backward(...)`` on a torch value, or ``torch.autograd.grad/backward(...)``."""
    if not isinstance(call, ast.Call) or a.side_by_side:
        return False
    if isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
        return tensor_backward(a, call)
    return a.qualname(call.func) in ("torch.autograd.grad", "torch.autograd.backward")


@detector("retain_graph_keyword", ast.keyword, idiom="`retain_graph=` argument")
def _retain_graph(node, a):
    return at(node) if node.arg == "retain_graph" and _autodiff_call(a, a.parent.get(node)) else None


@detector("create_graph_keyword", ast.keyword, idiom="`create_graph=` argument")
def _create_graph(node, a):
    return at(node) if node.arg == "create_graph" and _autodiff_call(a, a.parent.get(node)) else None


function_detector("autograd_grad_call", {"torch.autograd.grad"}, idiom="`torch.autograd.grad(...)`")


@detector("backward_gradient_argument", ast.Call, idiom="`y.backward(v)` (an explicit gradient)")
def _backward_gradient(node, a):
    if method(node, a, {"backward"}) is None or not tensor_backward(a, node):
        return None
    seed = node.args[0] if node.args else keyword(node, "gradient")
    if seed is None:
        return None
    return Hit(seed.lineno, seed.col_offset + 1, shared=True)  # the call is still a backward call


@detector("grad_none_check", ast.Compare, idiom="`x.grad is None`")
def _grad_none(node, a):
    sides = [node.left, *node.comparators]
    grads = [s for s in sides if grad_of(s, a)]
    none = any(isinstance(s, ast.Constant) and s.value is None for s in sides)
    return at_name(grads[0], tuple(grads)) if grads and none else None


@detector("grad_zero_call", ast.Call, idiom="`x.grad.zero_()`")
def _grad_zero(node, a):
    name = method(node, a, {"zero_"})
    if name is not None and grad_of(name.value, a):
        return at_name(name, grad_attrs(name.value, a))
    return None


@detector("grad_set_none", ast.Assign, idiom="`x.grad = None`")
def _grad_set_none(node, a):
    targets = [t for t in node.targets if attribute(t, a, "grad", ast.Store)]
    if targets and isinstance(node.value, ast.Constant) and node.value.value is None \
            and torch_value(a, targets[0].value):
        return at_name(targets[0], tuple(targets))
    return None


@detector("zero_grad_call", ast.Call, idiom="`optimizer.zero_grad()` / `model.zero_grad()`")
def _zero_grad(node, a):
    name = method(node, a, {"zero_grad"})
    if name is not None and (torch_object(a, name.value, OPTIMIZER, modules=True) or is_burn(a, name.value)):
        return at_name(name)
    return None


@detector("grad_update_augassign", ast.AugAssign, idiom="`p -= lr * p.grad`")
def _grad_augassign(node, a):
    reads = [n for n in ast.walk(node.value) if grad_of(n, a)]
    return at(node.target, grad_attrs(node, a)) if reads else None


@detector("grad_update_inplace", ast.Call, idiom="`p.add_(p.grad, alpha=-lr)`")
def _grad_inplace_update(node, a):
    if not (isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_")):
        return None
    args = [*node.args, *(k.value for k in node.keywords)]
    reads = [n for arg in args for n in ast.walk(arg) if grad_of(n, a)]
    if not reads or grad_of(node.func.value, a) or not torch_value(a, node.func.value):
        return None
    return at_name(node.func, grad_attrs(node, a))


@detector("grad_inplace_edit", ast.Call, idiom="`x.grad.clamp_(...)` (editing a gradient in place)")
def _grad_edit(node, a):
    if isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
            and grad_of(node.func.value, a):
        return at_name(node.func, grad_attrs(node.func.value, a))
    return None


@detector("grad_set", ast.Assign, idiom="`x.grad = g`")
def _grad_set(node, a):
    targets = [t for t in node.targets if attribute(t, a, "grad", ast.Store)
               and torch_value(a, t.value)]
    return at_name(targets[0], tuple(targets)) if targets else None


@detector("retain_grad_call", ast.Call, idiom="`h.retain_grad()`")
def _retain_grad(node, a):
    name = method(node, a, {"retain_grad"})
    return at_name(name) if name is not None and torch_value(a, name.value) else None


@detector("backward_call", ast.Call, idiom="`loss.backward()` (its result unused)")
def _backward(node, a):
    name = method(node, a, {"backward"})
    if name is None or not a.is_discarded(node):
        return None  # `grads = loss.backward()` is burn_torch's form
    if is_burn(a, name.value):
        return None if a.expects_error(node) else at_name(name)
    return at_name(name) if tensor_backward(a, node) else None


@detector("grad_read", ast.Attribute, idiom="reading `x.grad`")
def _grad_read(node, a):
    return at_name(node) if grad_of(node, a) and attribute(node, a, "grad") else None


@detector("freeze_requires_grad_call", ast.Call,
          idiom="`p.requires_grad_(False)` / `model.requires_grad_(False)` (freezing)")
def _freeze_call(node, a):
    name = method(node, a, {"requires_grad_"})
    if name is None or a.side_by_side:
        return None
    kind = a.kind(name.value)
    if kind == PARAM or is_module(kind):
        return at_name(name, hint=_FREEZE_HINT)
    return None


_FREEZE_HINT = ("freeze a whole module with model = model.no_grad() (assign it back); one "
                "parameter: layer.weight = layer.weight.set_require_grad(False)")


@detector("freeze_requires_grad_assign", ast.Attribute,
          idiom="`param.requires_grad = False` on a module's parameters")
def _freeze_assign(node, a):
    if attribute(node, a, "requires_grad", ast.Store) and not a.side_by_side \
            and (a.kind(node.value) == PARAM or is_module(a.kind(node.value))):
        return at_name(node, hint=_FREEZE_HINT)
    return None


@detector("requires_grad_inplace_call", ast.Call, idiom="`x.requires_grad_(...)`")
def _requires_grad_inplace(node, a):
    name = method(node, a, {"requires_grad_"})
    return at_name(name) if name is not None and torch_value(a, name.value) else None


@detector("requires_grad_assign", ast.Attribute, idiom="`x.requires_grad = ...`")
def _requires_grad_assign(node, a):
    ok = attribute(node, a, "requires_grad", ast.Store) and (torch_value(a, node.value) or is_burn(a, node.value))
    return at_name(node) if ok else None


@detector("requires_grad_read", ast.Attribute, idiom="reading `x.requires_grad`")
def _requires_grad_read(node, a):
    ok = attribute(node, a, "requires_grad") and (torch_value(a, node.value) or is_burn(a, node.value))
    return at_name(node) if ok else None


_PARAMETER = {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}


@detector("requires_grad_keyword", ast.keyword, idiom="`torch.tensor(..., requires_grad=True)`")
def _requires_grad_kw(node, a):
    call = a.parent.get(node)  # a Call, or a ClassDef for `class A(B, metaclass=M)`
    if not isinstance(call, ast.Call) or a.side_by_side or a.qualname(call.func) in _PARAMETER:
        return None  # the nn.Parameter idiom has its own entry
    q = a.qualname(call.func) or ""
    if node.arg == "requires_grad" and is_true(node.value) and q.startswith("torch."):
        return at(node)
    return None


@detector("is_leaf_read", ast.Attribute, idiom="`x.is_leaf`")
def _is_leaf(node, a):
    ok = attribute(node, a, "is_leaf") and (torch_value(a, node.value) or is_burn(a, node.value))
    return at_name(node) if ok else None


@detector("detach_then_move", ast.Call, idiom="`x.detach().cpu()` / `x.detach().to(device)`")
def _detach_move(node, a):
    name = method(node, a, {"cpu", "to", "cuda"})
    if name is not None and method(name.value, a, {"detach"}) is not None \
            and not a.side_by_side and a.kind(name.value.func.value) == PARAM:
        return at_name(name.value.func, (name.value, name.value.func))  # a leaf's stays tracked
    return None


@detector("detach_call", ast.Call, idiom="`p.detach()` of a parameter (a leaf)")
def _detach(node, a):
    name = method(node, a, {"detach"})
    if name is not None and not a.side_by_side and a.kind(name.value) == PARAM:
        return at_name(name)
    return None


_TORCH_DTYPES = {f"torch.{n}" for n in ("float", "float16", "float32", "float64", "half", "double",
                                         "bfloat16", "int", "int8", "int16", "int32", "int64",
                                         "long", "uint8", "bool")}


def _moves(node: ast.Call, a: Analysis) -> ast.Attribute | None:
    """The ``.to``/``.cpu``/``.cuda`` of a device move (not a dtype cast)."""
    name = method(node, a, {"to", "cpu", "cuda"})
    if name is None:
        return None
    args = [*node.args, *(k.value for k in node.keywords if k.arg not in ("non_blocking", "copy"))]
    if name.attr == "to" and args and all(a.qualname(x) in _TORCH_DTYPES or
                                           (isinstance(x, ast.Attribute) and x.attr == "dtype")
                                           for x in args):
        return None
    return name


@detector("to_device_call", ast.Call, idiom="`p.to(device)` / `p.cuda()` of a leaf tensor")
def _to_device(node, a):
    name = _moves(node, a)
    if name is not None and not a.side_by_side and a.kind(name.value) == PARAM:
        return at_name(name)
    return None


@detector("module_to_device_call", ast.Call, idiom="`model.to(device)` / `model.cuda()`")
def _module_to_device(node, a):
    name = _moves(node, a)
    if name is not None and not a.side_by_side and (is_module(a.kind(name.value))
                                                  or _constructed_here(a, name.value)) \
            and not _parameterless_loss(a, name.value):
        return at_name(name)
    return None


def _parameterless_loss(a: Analysis, module: ast.AST) -> bool:
    """Whether ``module`` was built by a torch loss class without arguments (``nn.BCELoss()``):
    it holds no parameters, so moving it forks nothing."""
    made = made_by(a, module) if isinstance(module, (ast.Name, ast.Attribute)) else module
    if not isinstance(made, ast.Call) or made.args or made.keywords:
        return False
    q = a.qualname(made.func) or ""
    return q.startswith("torch.nn.") and q.endswith("Loss")


def _constructed_here(a: Analysis, expr: ast.AST) -> bool:
    """``Model(...)`` of a class imported from the user's own code: ``Model(...).to(device)``
    moves a module (tensors are not built by calling a class)."""
    if not isinstance(expr, ast.Call) or a.kind(expr) != UNKNOWN:
        return False
    q = a.qualname(expr.func)
    last = expr.func.attr if isinstance(expr.func, ast.Attribute) else getattr(expr.func, "id", "")
    return last[:1].isupper() and (q is None or q.split(".")[0] != "torch")


def _context_or_decorator(node, a, qualnames) -> Hit | None:
    """``with torch.no_grad():`` or ``@torch.no_grad()`` / ``@torch.no_grad``; in a file that
    imports burn_torch, only around code that computes with burn_torch values."""
    if isinstance(node, ast.Call) and a.qualname(node.func) in qualnames:
        return at(node, (node.func,)) if _around_port(a, node) else None
    # the bare decorator form: @torch.no_grad
    if a.qualname(node) in qualnames and isinstance(a.parent.get(node), (ast.FunctionDef, ast.AsyncFunctionDef)):
        return at(node) if _around_port(a, node) else None
    return None


def _around_port(a: Analysis, node: ast.AST) -> bool:
    """Whether the block ``node`` (a context manager or a decorator) governs is code to port:
    any code in a torch-only file, code using burn_torch values in a file importing it."""
    if not a.side_by_side:
        return True
    block = a.parent.get(node)
    while block is not None and not isinstance(block, (ast.With, ast.AsyncWith, ast.FunctionDef,
                                                       ast.AsyncFunctionDef)):
        block = a.parent.get(block)
    body = getattr(block, "body", [])
    return any(a.kind(n) == BURN for stmt in body for n in ast.walk(stmt))


@detector("no_grad_context", ast.Call, ast.Attribute,
          idiom="`torch.no_grad()` / `torch.set_grad_enabled(False)`")
def _no_grad(node, a):
    return _context_or_decorator(node, a, {"torch.no_grad", "torch.set_grad_enabled",
                                           "torch.enable_grad", "torch.autograd.no_grad"})


@detector("inference_mode_context", ast.Call, ast.Attribute, idiom="`torch.inference_mode()`")
def _inference_mode(node, a):
    return _context_or_decorator(node, a, {"torch.inference_mode"})


@detector("register_hook_call", ast.Call, idiom="`x.register_hook(fn)` and the modules' `register_*hook` calls")
def _hook(node, a):
    if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("register_") \
            and node.func.attr.endswith("hook") and a.qualname(node.func) is None \
            and torch_object(a, node.func.value, TENSOR, PARAM, modules=True):
        hint = None
        if is_module(a.kind(node.func.value)) or "forward" in node.func.attr \
                or "module" in node.func.attr:
            hint = ("modules have no hooks: call the layer's forward yourself and use its output; "
                    "to change a gradient, split at the tensor (see the entry)")
        return at_name(node.func, hint=hint)
    return None


@detector("checkpoint_call", ast.Call, idiom="`torch.utils.checkpoint.checkpoint(fn, x)`")
def _checkpoint(node, a):
    name = a.qualname(node.func)
    if name is not None and name.startswith("torch.utils.checkpoint.") and not a.side_by_side:
        return at(node, (node.func,))
    return None


function_detector("torch_gru_call", {"torch.nn.GRU"}, idiom="`torch.nn.GRU(...)`")


function_detector("manual_seed_call", {"torch.manual_seed", "torch.random.manual_seed",
                                       "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"},
                  idiom="`torch.manual_seed(n)`")


def _mutations(a: Analysis, scope: ast.AST, name: str) -> list[ast.AST]:
    """Where the variable ``name`` of ``scope`` is changed in place: item assignment,
    augmented assignment, an in-place method (``a.fill(0)``, ``t.add_(1)``), ``out=a``."""
    found = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            found.append(node)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            found.append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and (node.func.attr.endswith("_") and not node.func.attr.startswith("_")
                     or node.func.attr in ("fill", "put", "sort", "resize", "itemset")):
            found.append(node)
        elif isinstance(node, ast.keyword) and node.arg == "out" \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            found.append(node)
    return found


@detector("from_numpy_call", ast.Call,
          idiom="`torch.from_numpy(a)` / `torch.as_tensor(a)` where the array or tensor is then mutated")
def _from_numpy(node, a):
    if not function(node, a, {"torch.from_numpy", "torch.as_tensor"}) or not node.args:
        return None
    scope = a.scope_of(node)
    source = node.args[0]
    if isinstance(source, ast.Name) and _mutations(a, scope, source.id):
        return at(node, (node.func,))
    parent = a.parent.get(node)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) and _mutations(a, scope, parent.targets[0].id):
        return at(node, (node.func,))
    return None


@detector("torch_compare_call", ast.Call,
          idiom="`torch.testing.assert_close(a, b)` / `torch.allclose(a, b)`")
def _torch_compare(node, a):
    """In a file importing burn_torch, only a comparison given a burn_torch value (torch
    reference values, ``torch.tensor(...)`` or ``x.to_torch()``, compare as they are)."""
    if not function(node, a, {"torch.testing.assert_close", "torch.allclose",
                              "torch.testing.assert_allclose"}):
        return None
    if a.burn_file and not any(is_burn(a, x) for x in (*node.args, *(k.value for k in node.keywords))):
        return None
    return at(node, (node.func,))


# ==================================================================== training idioms ====
function_detector("clip_grad_call",
                  {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
                   "torch.nn.utils.clip_grad.clip_grad_norm_"},
                  idiom="`torch.nn.utils.clip_grad_norm_(...)`")

function_detector("torch_muon_call", {"torch.optim.Muon"}, idiom="`torch.optim.Muon(...)`")

_OPTIMIZER_DEFAULTS = {
    "Adam": "AdamConfig's epsilon is 1e-5 (torch 1e-8): set it, AdamConfig().with_epsilon(1e-8)",
    "AdamW": "AdamWConfig's epsilon is 1e-5 and weight_decay 1e-4 (torch 1e-8 and 1e-2): set both",
    "SGD": "SGD momentum is MomentumConfig, whose dampening is 0.1 (torch 0): set dampening=0.0",
    "RMSprop": "RmsPropConfig's momentum is 0.9 and epsilon 1e-5 (torch 0 and 1e-8): set both",
    "Adagrad": "AdaGradConfig's epsilon is 1e-5 (torch 1e-10): set it",
}


@detector("torch_optimizer_call", ast.Call,
          idiom="`torch.optim.Adam(...)` / `AdamW(...)` / `SGD(...)` (an optimizer's defaults)")
def _torch_optimizer(node, a):
    name = a.qualname(node.func) or ""
    module, _, cls = name.rpartition(".")
    if module != "torch.optim" or cls not in _OPTIMIZER_DEFAULTS or a.side_by_side:
        return None
    momentum = keyword(node, "momentum")
    momentum = momentum.value if momentum is not None else (node.args[2] if len(node.args) > 2 else None)
    if cls == "SGD" and (momentum is None or isinstance(momentum, ast.Constant) and not momentum.value
                         or keyword(node, "dampening") is not None):
        return None  # plain SGD, or dampening given: no default differs
    if cls in _DIFFERING_DEFAULTS and all(keyword(node, k) is not None for k in _DIFFERING_DEFAULTS[cls]):
        return None  # every differing default is set explicitly: the port passes them on
    return at(node, (node.func,), hint=_OPTIMIZER_DEFAULTS[cls])


# The keywords whose torch default differs from Burn's, per optimizer (positional use of
# these is rare: they come after lr and betas).
_DIFFERING_DEFAULTS = {"Adam": ("eps",), "AdamW": ("eps", "weight_decay"), "RMSprop": ("eps", "momentum"),
                       "Adagrad": ("eps",)}


@detector("optimizer_step_closure", ast.Call, idiom="`optimizer.step(closure)`")
def _step_closure(node, a):
    name = method(node, a, {"step"})
    if name is None or len(node.args) + len(node.keywords) != 1 \
            or not torch_object(a, name.value, OPTIMIZER) or a.kind(name.value) == UNKNOWN \
            and not (node.args and isinstance(node.args[0], (ast.Name, ast.Lambda))
                     and "closure" in _source(node.args[0])):
        return None
    return at_name(name, hint="there is no closure: compute the loss and its gradients, then "
                              "model = opt.step(lr, model, GradientsParams.from_grads(grads, model))")


@detector("scaler_step_call", ast.Call, idiom="`scaler.step(optimizer)` (AMP)")
def _scaler_step(node, a):
    name = method(node, a, {"step"})
    if name is not None and not a.side_by_side and a.kind(name.value) == SCALER:
        return at_name(name, hint="there is no GradScaler: model = opt.step(lr, model, "
                                  "GradientsParams.from_grads(loss.backward(), model))")
    return None


@detector("optimizer_step_call", ast.Call, idiom="`optimizer.step()`")
def _optimizer_step(node, a):
    name = method(node, a, {"step"})
    if name is None or node.args or node.keywords or not a.is_discarded(node):
        return None  # `model = optim.step(lr, model, grads)` is burn_torch's form
    if torch_object(a, name.value, OPTIMIZER) or is_burn(a, name.value):
        return at_name(name)
    return None


@detector("parameters_call", ast.Call, idiom="`model.parameters()` / `model.named_parameters()`")
def _parameters(node, a):
    name = method(node, a, {"parameters", "named_parameters"})
    if name is not None and (torch_object(a, name.value, modules=True) or is_burn(a, name.value)):
        return at_name(name)
    return None


# ===================================================================== module idioms ====
@detector("parameter_call", ast.Call, idiom="`nn.Parameter(t)`")
def _parameter(node, a):
    return at(node, (node.func, *node.keywords)) if function(node, a, _PARAMETER) else None


# Initialisations that do not depend on which dim is fan-in: elementwise, or symmetric in the
# two fans (Xavier); Kaiming's fan_in mode does depend on the layout.
_LAYOUT_FREE_INIT = {f"torch.nn.init.{n}" for n in ("normal_", "uniform_", "zeros_", "ones_",
                                                     "constant_", "trunc_normal_", "xavier_uniform_",
                                                     "xavier_normal_")}


@detector("linear_weight_read", ast.Attribute,
          idiom="reading, copying or tying an `nn.Linear`'s `.weight`")
def _linear_weight(node, a):
    if not attribute(node, a, "weight") and not attribute(node, a, "weight", ast.Store):
        return None
    if a.side_by_side or a.kind(node.value) != LINEAR:
        return None
    parent = a.parent.get(node)
    if isinstance(parent, ast.Call) and node in parent.args[:1] \
            and a.qualname(parent.func) in _LAYOUT_FREE_INIT:
        return None  # such an initialisation does not depend on the layout
    return at_name(node)


@detector("load_state_dict_call", ast.Call, idiom="`model.load_state_dict(...)` / `model.state_dict()`")
def _load_state_dict(node, a):
    name = method(node, a, {"load_state_dict", "state_dict"})
    if name is not None and (torch_object(a, name.value, modules=True) or is_burn(a, name.value)):
        return at_name(name)
    return None


@detector("train_call", ast.Call, idiom="`model.train()` (its result unused) / `model.train(mode)`")
def _train(node, a):
    name = method(node, a, {"train"})
    if name is None or not (torch_object(a, name.value, modules=True) or is_burn(a, name.value)):
        return None
    if _own_method(a, name):
        return None  # the file's class defines its own train()
    if node.args or node.keywords:
        if is_burn(a, name.value) or len(node.args) + len(node.keywords) > 1 \
                or any(k.arg != "mode" for k in node.keywords):
            return None  # torch's train() takes one argument, mode
        return at_name(name, hint="train() takes no mode: model = model.train() to train, "
                                  "model_valid = model.valid() to evaluate")
    if not a.is_discarded(node):
        return None
    rebind = isinstance(name.value, ast.Attribute) or isinstance(name.value, ast.Name) \
        and _local_to_its_scope(a, name.value)
    return at_name(name, fix=Fix("train()", rebind=True) if rebind else None)


def _local_to_its_scope(a: Analysis, name: ast.Name) -> bool:
    """Whether assigning ``name`` where it is read keeps it the same variable: at module level,
    or in a function that already binds it (a parameter, an assignment) or declares it global.
    Assigning a global only read in a function would make it local (UnboundLocalError)."""
    scope = a.scope_of(name)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return True
    args = scope.args
    if name.id in [p.arg for p in (*args.posonlyargs, *args.args, *args.kwonlyargs)]:
        return True
    return any(isinstance(n, ast.Name) and n.id == name.id and isinstance(n.ctx, ast.Store)
               or isinstance(n, (ast.Global, ast.Nonlocal)) and name.id in n.names
               for n in ast.walk(scope) if a.scope_of(n) is scope)


_INTERPOLATE = {"torch.nn.functional.interpolate", "torch.nn.functional.upsample",
                "torch.nn.Upsample"}
_ALIGNED_MODES = {"linear", "bilinear", "bicubic", "trilinear"}


@detector("interpolate_without_align_corners", ast.Call,
          idiom="`F.interpolate` / `nn.Upsample` in a linear or cubic mode without `align_corners=`")
def _interpolate_align_corners(node, a):
    if not function(node, a, _INTERPOLATE) or keyword(node, "align_corners") is not None:
        return None
    mode = keyword(node, "mode")
    if mode is None or not (isinstance(mode.value, ast.Constant)
                            and mode.value.value in _ALIGNED_MODES):
        return None
    return at(node, (node.func,))


def rotates_half(fn: ast.FunctionDef, a: Analysis) -> bool:
    """Whether ``fn`` returns its input's two halves swapped with one negated,
    ``torch.cat((-x2, x1), dim=-1)``: a rotate-half RoPE helper, whatever it is called."""
    for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None):
        call = ret.value
        if not (isinstance(call, ast.Call) and call.args
                and (a.qualname(call.func) or "").rpartition(".")[2] in ("cat", "concat", "concatenate")):
            continue
        parts = call.args[0]
        if isinstance(parts, (ast.Tuple, ast.List)) and len(parts.elts) == 2 \
                and [isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub) for p in parts.elts].count(True) == 1:
            return True
    return False


@detector("rotate_half_definition", ast.FunctionDef,
          idiom="a rotate-half RoPE helper (`torch.cat((-x2, x1), -1)`: pairs `x[i]`, `x[i + d/2]`)")
def _rotate_half(node, a):
    return at(node) if not a.side_by_side and (node.name == "rotate_half" or rotates_half(node, a)) else None


def _own_method(a: Analysis, name: ast.Attribute) -> bool:
    """Whether ``x.name(...)`` calls a method the file's own classes define under that name
    on an instance of one of them (or on a value of unknown type, when one of them does)."""
    owner = a.owner_class(name.value)
    if owner is not None:
        return a.defines(owner, name.attr)
    return a.kind(name.value) == UNKNOWN and any(a.defines(c, name.attr) for c in a.classes)


@detector("eval_call", ast.Call, idiom="`model.eval()`")
def _eval(node, a):
    name = method(node, a, {"eval"})
    if name is not None and not node.args and not node.keywords \
            and (torch_object(a, name.value, modules=True) or is_burn(a, name.value)):
        return at_name(name)
    return None


# ====================================================================== tensor idioms ====
@detector("torch_where_call", ast.Call, idiom="`torch.where(cond, a, b)`")
def _where(node, a):
    return at(node, (node.func,)) if function(node, a, {"torch.where"}) and len(node.args) == 3 else None


@detector("roll_call", ast.Call, idiom="`torch.roll(x, shifts, dims)` / `x.roll(shifts, dims)`")
def _roll(node, a):
    if function(node, a, {"torch.roll"}):
        return at(node, (node.func,))
    name = method(node, a, {"roll"})
    return at_name(name, (name,)) if name is not None and torch_value(a, name.value, strict=True) else None


@detector("transpose_call", ast.Call, ast.Attribute, idiom="`x.transpose(a, b)` / `x.t()` / `x.T`")
def _transpose(node, a):
    if isinstance(node, ast.Call):
        name = method(node, a, {"transpose", "t"})
        if name is None or not torch_value(a, name.value, strict=name.attr == "transpose"):
            return None
        if name.attr == "transpose":
            if len(node.args) != 2 or node.keywords:
                return None
            return at_name(name, (name,), fix=Fix("swap_dims({args})"))
        return at_name(name, (name,)) if not node.args else None
    if (attribute(node, a, "T") or attribute(node, a, "mT")) and torch_value(a, node.value, strict=True):
        return at_name(node)
    return None


@detector("unsqueeze_call", ast.Call, idiom="`x.unsqueeze(d)`")
def _unsqueeze(node, a):
    name = method(node, a, {"unsqueeze"})
    if name is not None and torch_value(a, name.value) and len(node.args) == 1 and not node.keywords:
        return at_name(name, fix=Fix("unsqueeze_dim({args})"))
    return None


@detector("clone_call", ast.Call, idiom="`p.clone()` of a parameter (a leaf)")
def _clone(node, a):
    name = method(node, a, {"clone"})
    if name is not None and not a.side_by_side and a.kind(name.value) == PARAM:
        return at_name(name)
    return None


@detector("shape_read", ast.Attribute, ast.Call, idiom="`x.shape` / `x.size()`")
def _shape(node, a):
    if isinstance(node, ast.Call):
        name = method(node, a, {"size"})
        if name is None or a.side_by_side:
            return None
        # `x.size(1)`, `x.size()[-1]`, `b, t = x.size()` are a tensor's; `memory.size()` may be
        # anything's
        tensor_like = bool(node.args) and int_literal(node.args[0]) or _shape_like_use(a, node)
        if not torch_value(a, name.value, strict=not tensor_like):
            return None
        return at_name(name, (name,))
    return at_name(node) if attribute(node, a, "shape") and torch_value(a, node.value, strict=True) else None


def _shape_like_use(a: Analysis, call: ast.Call) -> bool:
    """Whether ``call``'s result is used as a shape: indexed, unpacked, or given to a
    ``zeros``/``ones``/``empty`` constructor."""
    parent = a.parent.get(call)
    if isinstance(parent, ast.Subscript) and parent.value is call:
        return True
    if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple):
        return True
    return isinstance(parent, ast.Call) and call in parent.args and \
        (a.qualname(parent.func) or "").rpartition(".")[2] in ("zeros", "ones", "empty", "full")


_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


@detector("tensor_comparison", ast.Compare, idiom="`a == b`, `a < b` between tensors")
def _comparison(node, a):
    sides = [node.left, *node.comparators]
    if not all(isinstance(op, _COMPARISONS) for op in node.ops):
        return None
    if any(isinstance(s, ast.Constant) and (s.value is None or isinstance(s.value, str)) for s in sides):
        return None
    if any(torch_value(a, s, strict=True) for s in sides):
        return at(node)
    return None


_CONVERSIONS = {"float", "int", "bool"}


@detector("tensor_as_number", ast.FormattedValue, ast.Call,
          idiom="formatting a tensor as a number (`f'{loss:.4f}'`), `float(t)`, `int(t)`")
def _as_number(node, a):
    if isinstance(node, ast.FormattedValue):
        if node.format_spec is not None and torch_value(a, node.value, strict=True):
            return at(node.value)
        return None
    if isinstance(node.func, ast.Name) and node.func.id in _CONVERSIONS and len(node.args) == 1 \
            and torch_value(a, node.args[0], strict=True):
        return at(node)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str) \
            and "{:" in node.func.value.value.replace("{0:", "{:"):
        for arg in node.args:
            if torch_value(a, arg, strict=True):
                return at(arg)
    return None


_RENAMED = {
    "item": ("into_scalar()", "`.into_scalar()`"), "tolist": ("to_data().to_list()", "`.to_data().to_list()`"),
    "numpy": ("to_data().to_numpy()", "`.to_data().to_numpy()`"), "view": (None, "`.reshape(dims)`"),
    "dim": ("rank()", "`.rank()`"), "ndimension": ("rank()", "`.rank()`"),
    "numel": ("num_elements()", "`.num_elements()`"), "nelement": ("num_elements()", "`.num_elements()`"),
    "masked_fill": ("mask_fill({args})", "`.mask_fill(mask, value)`"),
    "type_as": (None, "`.cast(other.dtype())`"), "long": ("int()", "`.int()`"),
    "double": (None, "`.cast(DType.F64)`"),
    "pow": (None, "`.powf_scalar(e)` for a number, `.powf(t)` for a tensor exponent"),
    "mm": ("matmul({args})", "`.matmul(other)`"), "bmm": ("matmul({args})", "`.matmul(other)`"),
    "contiguous": (None, "nothing: drop `.contiguous()`"), "eq": ("equal({args})", "`.equal(other)`"),
    "ne": ("not_equal({args})", "`.not_equal(other)`"), "gt": ("greater({args})", "`.greater(other)`"),
    "lt": ("lower({args})", "`.lower(other)`"), "ge": ("greater_equal({args})", "`.greater_equal(other)`"),
    "le": ("lower_equal({args})", "`.lower_equal(other)`"), "sigmoid": (None, "`activation.sigmoid(x)`"),
    "softmax": (None, "`activation.softmax(x, dim)`"), "relu": (None, "`activation.relu(x)`"),
    "log_softmax": (None, "`activation.log_softmax(x, dim)`"),
    "view_as": (None, "`.reshape(other.dims())`"), "expand_as": (None, "`.expand(other.dims())`"),
}


_MOVES = {"to", "cpu", "cuda"}


def _tensor_like_call(name: str, call: ast.Call) -> bool:
    """Whether a call of a name numpy shares is a tensor's by its arguments: ``x.item()`` (an
    ndarray's ``item()`` is rare in torch code) and ``x.view(b, -1)`` or ``x.view(-1)`` (numpy's
    ``view`` takes one dtype)."""
    if name == "item":
        return not call.args and not call.keywords
    if name == "view":
        return len(call.args) > 1 or (len(call.args) == 1 and int_literal(call.args[0]))
    return False


def _rename_hint(method_name: str) -> tuple[str, Fix | None]:
    burn_name = _RENAMED.get(method_name)
    if burn_name is None:
        return (f"`.{method_name}(...)` is PyTorch-only: burn_torch's Tensor has no such method "
                "(see the API reference for the Burn equivalent)"), None
    template, text = burn_name
    return f"`.{method_name}(...)` is {text} in burn_torch", Fix(template) if template else None


@detector("renamed_method_call", ast.Call,
          idiom="`x.item()`, `x.view(...)`, `x.pow(...)` and the other torch-only tensor methods")
def _renamed(node, a):
    if not isinstance(node.func, ast.Attribute) or a.qualname(node.func) is not None:
        return None
    name = node.func.attr
    lists = stored_methods()
    if name not in lists["torch_only"] or name in _MOVES:
        return None  # device moves: see the to_device detectors
    kind = a.kind(node.func.value)
    if kind != BURN and not torch_value(a, node.func.value, strict=True) \
            and not (torch_value(a, node.func.value) and (name not in lists["ambiguous"]
                                                          or _tensor_like_call(name, node))):
        return None
    hint, fix = _rename_hint(name)
    if name == "view" and len(node.args) >= 2 and not node.keywords \
            and not any(isinstance(x, ast.Starred) for x in node.args):
        fix = Fix("reshape([{args}])")
    elif name == "pow" and len(node.args) == 1 and not node.keywords and _number(node.args[0]):
        fix = Fix("powf_scalar({args})")  # a number: powf would want a tensor
    return at_name(node.func, hint=hint, fix=fix)


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


@detector("squeeze_with_dim", ast.Call, idiom="`x.squeeze(d)` (a dim given to squeeze)")
def _squeeze_dim(node, a):
    name = method(node, a, {"squeeze"})
    if name is None or len(node.args) + len(node.keywords) != 1:
        return None
    receiver = name.value
    dim_like = bool(node.keywords) and node.keywords[0].arg == "dim" or bool(node.args) and int_literal(node.args[0])
    if not (torch_value(a, receiver, strict=True) or is_burn(a, receiver)
            or dim_like and torch_value(a, receiver)):
        return None
    fix = Fix("squeeze_dim({args})") if node.args and int_literal(node.args[0]) else None
    return at_name(name, hint="`.squeeze(d)` is `.squeeze_dim(d)` in burn_torch", fix=fix)


@detector("data_read", ast.Attribute, idiom="`x.data`")
def _data(node, a):
    if not (attribute(node, a, "data") or attribute(node, a, "data", ast.Store)):
        return None
    if torch_value(a, node.value, strict=True) or is_burn(a, node.value):
        return at_name(node)
    # `x.data.numpy()`, `p.data.copy_(...)`: a tensor's .data, whatever x is known to be
    parent = a.parent.get(node)
    if torch_value(a, node.value) and isinstance(parent, ast.Attribute) \
            and (parent.attr.endswith("_") or parent.attr in stored_methods()["torch_only"]
                 or parent.attr in ("clone", "detach")):
        return at_name(node)
    return None


def _reduction(node, a, names, with_dim: bool, literal_dim: bool = False):
    """A ``.name(...)`` reduction (or ``torch.name(x, ...)``) without ``keepdim=True``;
    ``with_dim`` selects the calls that pass a dim (True) or none at all (False).
    ``literal_dim``: only an integer literal or ``dim=`` counts as a dim (``x.max(y)`` is an
    elementwise maximum). Returns (hit position node, receiver, dim argument or None)."""
    if not isinstance(node, ast.Call) or keyword(node, "axis") is not None or a.side_by_side:
        return None
    name = method(node, a, names)
    args = list(node.args)
    if name is not None:
        receiver = name.value
        if not torch_value(a, receiver) or a.kind(receiver) in (NUMPY,):
            return None
    else:
        qual = a.qualname(node.func)
        if qual is None or qual.rpartition(".")[::2] not in {("torch", n) for n in names} or not args:
            return None
        receiver, args = args[0], args[1:]
    keepdim = keyword(node, "keepdim")
    keepdim = keepdim.value if keepdim is not None else (args[1] if len(args) > 1 else None)
    if is_true(keepdim):
        return None
    dim_kw = keyword(node, "dim")
    dim = dim_kw.value if dim_kw is not None else (args[0] if args else None)
    has_dim = dim is not None and not (isinstance(dim, ast.Constant) and dim.value is None)
    if literal_dim and args and not int_literal(args[0]) and dim_kw is None:
        return None
    if has_dim != with_dim:
        return None
    return name, receiver, dim


def _reduction_hit(node, found, template: str | None = None) -> Hit | None:
    if found is None:
        return None
    name, _, dim = found
    fix = None
    if template and name is not None and dim is not None and int_literal(dim) \
            and len(node.args) + len(node.keywords) == 1:
        fix = Fix(template.format(d=_source(dim)))
    return at_name(name, fix=fix) if name is not None else at(node, (node.func,))


@detector("sum_dim_reduction", ast.Call, idiom="`x.sum(dim)` / `x.prod(dim)` without `keepdim=True`")
def _sum_dim(node, a):
    found = _reduction(node, a, {"sum", "prod"}, True)
    if found is None or found[0] is None:
        return _reduction_hit(node, found)
    return _reduction_hit(node, found, f"{found[0].attr}_dim({{d}}).squeeze_dim({{d}})")


@detector("mean_dim_reduction", ast.Call, idiom="`x.mean(dim)` without `keepdim=True`")
def _mean_dim(node, a):
    return _reduction_hit(node, _reduction(node, a, {"mean"}, True), "mean_dim({d}).squeeze_dim({d})")


@detector("max_dim_reduction", ast.Call, idiom="`x.max(dim)` / `x.min(dim)`")
def _max_dim(node, a):
    return _reduction_hit(node, _reduction(node, a, {"max", "min"}, True, literal_dim=True))


@detector("argmax_reduction", ast.Call, idiom="`x.argmax(dim)` / `x.argmin(dim)` / `x.argmax()`")
def _argmax(node, a):
    parent = a.parent.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr == "squeeze_dim":
        return None  # `x.argmax(1).squeeze_dim(1)`: already ported
    found = _reduction(node, a, {"argmax", "argmin"}, True)
    if found is not None:
        return _reduction_hit(node, found, f"{found[0].attr}({{d}}).squeeze_dim({{d}})"
                              if found[0] is not None else None)
    return _reduction_hit(node, _reduction(node, a, {"argmax", "argmin"}, False))


_SHAPE_SENSITIVE = {"shape", "size", "dim", "ndim", "numel", "view", "reshape", "unsqueeze",
                    "squeeze", "expand", "repeat", "flatten", "t", "T", "transpose", "permute",
                    "tolist", "numpy", "__len__"}
_SHAPE_NEUTRAL = {"item", "backward", "detach", "cpu", "cuda", "to", "float", "double"}
_SHAPE_FUNCTIONS = {"torch.stack", "torch.cat", "torch.tensor", "torch.as_tensor", "torch.concat"}


def shape_used(a: Analysis, expr: ast.AST, depth: int = 0) -> bool:
    """Whether the shape of ``expr``'s value matters where it goes: read (``.shape``,
    ``.view``, indexing), stacked or concatenated, directly or through arithmetic and the
    variable it is assigned to. ``.item()``, ``.backward()``, printing and returning do not."""
    if depth > 6:
        return False
    parent = a.parent.get(expr)
    if isinstance(parent, ast.Attribute) and parent.value is expr:
        if parent.attr in _SHAPE_SENSITIVE:
            return True
        if parent.attr in _SHAPE_NEUTRAL:
            return False
        call = a.parent.get(parent)
        return isinstance(call, ast.Call) and call.func is parent and shape_used(a, call, depth + 1)
    if isinstance(parent, ast.Subscript) and parent.value is expr:
        return True
    if isinstance(parent, (ast.List, ast.Tuple)):
        outer = a.parent.get(parent)
        return isinstance(outer, ast.Call) and a.qualname(outer.func) in _SHAPE_FUNCTIONS
    if isinstance(parent, ast.Call) and expr in parent.args:
        return a.qualname(parent.func) in _SHAPE_FUNCTIONS
    if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
        return shape_used(a, parent, depth + 1)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        after = (parent.end_lineno, parent.end_col_offset)
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                   and (n.lineno, n.col_offset) > after and shape_used(a, n, depth + 1)
                   for n in ast.walk(a.scope_of(parent)))
    return False


@detector("full_reduction", ast.Call,
          idiom="`x.sum()` / `x.mean()` / `x.max()` (a full reduction) whose shape is used")
def _full(node, a):
    found = _reduction(node, a, {"sum", "mean", "prod", "max", "min"}, False)
    if found is None or not shape_used(a, node):
        return None
    return _reduction_hit(node, found)


_NOT_TENSORS = (OTHER, NUMPY, BURN, FOREIGN, OPTIMIZER, SCHEDULER, SCALER, LOADER)


@detector("inplace_method_call", ast.Call,
          idiom="in-place methods ending in `_` (`x.add_(1)`), `torch._foreach_*_`")
def _inplace(node, a):
    if a.side_by_side:
        return None
    if isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        qual = a.qualname(node.func)
        if qual is not None:
            if qual.startswith("torch._foreach_") and attr.endswith("_"):  # nn.init: module_apply_init
                return at(node, (node.func,))
            return None
        if not attr.endswith("_") or attr.startswith("_") or len(attr) < 2:
            return None
        kind = a.kind(node.func.value)
        if kind in _NOT_TENSORS or is_module(kind) or isinstance(kind, (tuple, Iter)):
            return None
        return at_name(node.func)
    return None


# ============================================================ layers and losses whose defaults differ ====
def _call_with_keyword(name: str, qualnames: set[str], kw: str, idiom: str) -> None:
    """Registers detector ``name``: a call of one of ``qualnames`` passing keyword ``kw``."""
    def match(node, a):
        return at(node, (node.func,)) if function(node, a, qualnames) and keyword(node, kw) else None
    detector(name, ast.Call, idiom=idiom)(match)


_call_with_keyword("cross_entropy_ignore_index_call",
                   {"torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss",
                    "torch.nn.functional.nll_loss", "torch.nn.NLLLoss"}, "ignore_index",
                   idiom="`F.cross_entropy(..., ignore_index=...)`")
@detector("kl_div_call", ast.Call, idiom="`F.kl_div(...)`, `nn.KLDivLoss()` with the default reduction")
def _kl_div_default_reduction(node, a):
    """KL divergence reduced with torch's default (``reduction`` absent or ``"mean"``)."""
    if not function(node, a, {"torch.nn.functional.kl_div", "torch.nn.KLDivLoss"}):
        return None
    reduction = keyword(node, "reduction")
    if reduction is None or isinstance(reduction.value, ast.Constant) and reduction.value.value == "mean":
        return at(node, (node.func,))
    return None
function_detector("hardsigmoid_call", {"torch.nn.functional.hardsigmoid", "torch.nn.Hardsigmoid"},
                  idiom="`nn.Hardsigmoid()`, `F.hardsigmoid(...)`")
@detector("local_response_norm_call", ast.Call, idiom="`nn.LocalResponseNorm(size)` with an even size")
def _local_response_norm_even(node, a):
    """A local response norm whose size is not an odd literal."""
    qualnames = {"torch.nn.functional.local_response_norm": 1, "torch.nn.LocalResponseNorm": 0}
    if not function(node, a, set(qualnames)):
        return None
    at_index = qualnames[a.qualname(node.func)]
    size = keyword(node, "size")
    size = size.value if size is not None else (
        node.args[at_index] if len(node.args) > at_index else None)
    if isinstance(size, ast.Constant) and isinstance(size.value, int) and size.value % 2:
        return None
    return at(node, (node.func,))
function_detector("rms_norm_call", {"torch.nn.functional.rms_norm", "torch.nn.RMSNorm"},
                  idiom="`nn.RMSNorm(d)`")


# ======================================================= BatchNorm's running variance ====
_BATCH_NORMS = {f"torch.nn.{name}" for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d",
                                                "LazyBatchNorm2d", "LazyBatchNorm3d")} \
    | {"torch.nn.functional.batch_norm"}  # SyncBatchNorm: the sync_batch_norm entry


@detector("batch_norm_running_stats", ast.Attribute, ast.Name,
          idiom="`nn.BatchNorm2d(c)` (or `norm_layer=nn.BatchNorm2d`) tracking running statistics")
def _batch_norm_running_stats(node, a):
    """A torch BatchNorm class or ``F.batch_norm``, called or passed on (a ``norm_layer``),
    except in ``isinstance`` checks and with ``track_running_stats=False``."""
    if a.side_by_side or not isinstance(node.ctx, ast.Load) or a.qualname(node) not in _BATCH_NORMS:
        return None
    parent = a.parent.get(node)
    if isinstance(parent, ast.Tuple):
        parent = a.parent.get(parent)
    if isinstance(parent, ast.Call) and parent.func is not node and isinstance(parent.func, ast.Name) \
            and parent.func.id in ("isinstance", "issubclass"):
        return None
    if isinstance(parent, ast.Call) and parent.func is node:
        tracked = keyword(parent, "track_running_stats")
        if tracked is not None and isinstance(tracked.value, ast.Constant) and tracked.value.value is False:
            return None
    # shared: the call stays open to module_constructor_arguments (nn.BatchNorm2d(c, eps, ...))
    return Hit(node.lineno, node.col_offset + 1, shared=True)
