"""The porting checker's detectors: each finds one PyTorch idiom in a parsed source file.

A detector looks at one kind of AST node and returns a :class:`Hit` (where the idiom is, which
nodes it covers, optionally a more specific porting hint) or None. Catalog entries name the
detectors that find their idiom (``DETECTORS`` in ``compat/<category>/<id>.py``); the checker
runs only those. Detectors run in registration order and a node covered by an earlier hit is
not examined again, so the specific idioms (``x.grad is None``, ``p.grad.clamp_(...)``) are
registered before the general ones (``.grad`` reads, methods ending in ``_``). The common
shapes (a method call, a call of an imported function, an attribute) are registered with
:func:`method_detector`, :func:`function_detector` and :func:`attribute_detector`.

Method detectors ignore calls on imported modules (``np.sum(a)`` is not a tensor reduction);
function detectors resolve names through the file's imports (``from torch import where``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterable


@dataclass(frozen=True)
class Hit:
    """A found idiom: its 1-based line and column, the nodes it covers besides the matched one
    (which it covers too unless ``shared``), an optional hint replacing the entry's recipe."""

    line: int
    col: int
    covers: tuple[ast.AST, ...] = ()
    hint: str | None = None
    shared: bool = False


@dataclass(frozen=True)
class Detector:
    name: str
    node_types: tuple[type, ...]
    match: Callable[[ast.AST, "Source"], "Hit | None"]
    idiom: str  # the PyTorch idiom, as the guide names it


class Source:
    """A parsed file: its tree, each node's parent and what its imported names stand for."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[ast.AST, ast.AST] = {}
        self.imports: dict[str, str] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imports[a.asname or a.name] = f"{node.module}.{a.name}"

    def qualname(self, expr: ast.AST) -> str | None:
        """``torch.utils.checkpoint.checkpoint`` for an expression naming an imported object
        (through any alias); None for anything rooted in a local value."""
        parts = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name) or expr.id not in self.imports:
            return None
        return ".".join([self.imports[expr.id], *reversed(parts)])


DETECTORS: dict[str, Detector] = {}


def detector(name: str, *node_types: type, idiom: str):
    """Registers the decorated ``match(node, source)`` as detector ``name``."""
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
    source = Source(tree)
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
                hit = det.match(node, source)
                if hit is not None:
                    if not hit.shared:
                        covered.add(node)
                    covered.update(hit.covers)
                    hits.append((det.name, hit))
    return hits


# ============================================================================== helpers ====
def at(node: ast.AST, covers: tuple = (), hint: str | None = None) -> Hit:
    """A hit at the start of ``node``."""
    return Hit(node.lineno, node.col_offset + 1, covers, hint)


def at_name(attr: ast.Attribute, covers: tuple = (), hint: str | None = None) -> Hit:
    """A hit at the attribute name of ``attr`` (the ``grad`` of ``x.grad``)."""
    return Hit(attr.end_lineno, attr.end_col_offset - len(attr.attr) + 1, covers, hint)


def method(node: ast.AST, source: Source, names) -> ast.Attribute | None:
    """The ``.name`` of a call ``<value>.name(...)`` on a value (not a module), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in names and source.qualname(node.func) is None:
        return node.func
    return None


def function(node: ast.AST, source: Source, qualnames) -> bool:
    """Whether ``node`` calls one of the imported functions ``qualnames``."""
    return isinstance(node, ast.Call) and source.qualname(node.func) in qualnames


def attribute(node: ast.AST, source: Source, name: str, ctx: type = ast.Load) -> bool:
    """Whether ``node`` is ``<value>.name`` in context ``ctx`` on a value (not a module)."""
    return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ctx) \
        and source.qualname(node) is None


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def method_detector(name: str, methods: set[str], idiom: str) -> None:
    """Registers detector ``name``: a call of one of ``methods`` on a value (see :func:`method`),
    hit at the method's name."""
    def match(node, source):
        found = method(node, source, methods)
        return None if found is None else at_name(found)
    detector(name, ast.Call, idiom=idiom)(match)


def function_detector(name: str, qualnames: set[str], idiom: str) -> None:
    """Registers detector ``name``: a call of one of the imported functions ``qualnames``, hit at
    the call (which covers the function's name)."""
    def match(node, source):
        return at(node, (node.func,)) if function(node, source, qualnames) else None
    detector(name, ast.Call, idiom=idiom)(match)


def attribute_detector(name: str, attr: str, ctx: type = ast.Load, *, idiom: str) -> None:
    """Registers detector ``name``: ``<value>.attr`` in context ``ctx`` (see :func:`attribute`),
    hit at the attribute's name."""
    def match(node, source):
        return at_name(node) if attribute(node, source, attr, ctx) else None
    detector(name, ast.Attribute, idiom=idiom)(match)


def grad_attrs(node: ast.AST, source: Source) -> tuple[ast.AST, ...]:
    """Every ``.grad`` and ``.data`` read inside ``node`` (what a gradient update covers)."""
    return tuple(n for n in ast.walk(node) if attribute(n, source, "grad") or attribute(n, source, "data")
                 or attribute(n, source, "data", ast.Store))


# ==================================================================== autodiff idioms ====
@detector("retain_graph_keyword", ast.keyword, idiom="`retain_graph=` argument")
def _retain_graph(node, source):
    return at(node) if node.arg == "retain_graph" else None


@detector("create_graph_keyword", ast.keyword, idiom="`create_graph=` argument")
def _create_graph(node, source):
    return at(node) if node.arg == "create_graph" else None


function_detector("autograd_grad_call", {"torch.autograd.grad"}, idiom="`torch.autograd.grad(...)`")


@detector("backward_gradient_argument", ast.Call, idiom="`y.backward(v)` (an explicit gradient)")
def _backward_gradient(node, source):
    if method(node, source, {"backward"}) is None:
        return None
    seed = node.args[0] if node.args else keyword(node, "gradient")
    if seed is None:
        return None
    return Hit(seed.lineno, seed.col_offset + 1, shared=True)  # the call is still a backward call


@detector("grad_none_check", ast.Compare, idiom="`x.grad is None`")
def _grad_none(node, source):
    sides = [node.left, *node.comparators]
    grads = [s for s in sides if attribute(s, source, "grad")]
    none = any(isinstance(s, ast.Constant) and s.value is None for s in sides)
    return at_name(grads[0], tuple(grads)) if grads and none else None


@detector("grad_zero_call", ast.Call, idiom="`x.grad.zero_()`")
def _grad_zero(node, source):
    name = method(node, source, {"zero_"})
    if name is not None and attribute(name.value, source, "grad"):
        return at_name(name, (name.value,))
    return None


@detector("grad_set_none", ast.Assign, idiom="`x.grad = None`")
def _grad_set_none(node, source):
    targets = [t for t in node.targets if attribute(t, source, "grad", ast.Store)]
    if targets and isinstance(node.value, ast.Constant) and node.value.value is None:
        return at_name(targets[0], tuple(targets))
    return None


method_detector("zero_grad_call", {"zero_grad"}, idiom="`optimizer.zero_grad()` / `model.zero_grad()`")


@detector("grad_update_augassign", ast.AugAssign, idiom="`p -= lr * p.grad`")
def _grad_augassign(node, source):
    reads = [n for n in ast.walk(node.value) if attribute(n, source, "grad")]
    return at(node.target, grad_attrs(node, source)) if reads else None


@detector("grad_update_inplace", ast.Call, idiom="`p.add_(p.grad, alpha=-lr)`")
def _grad_inplace_update(node, source):
    if not (isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_")):
        return None
    args = [*node.args, *(k.value for k in node.keywords)]
    reads = [n for a in args for n in ast.walk(a) if attribute(n, source, "grad")]
    if not reads or attribute(node.func.value, source, "grad"):
        return None
    return at_name(node.func, grad_attrs(node, source))


@detector("grad_inplace_edit", ast.Call, idiom="`x.grad.clamp_(...)` (editing a gradient in place)")
def _grad_edit(node, source):
    if isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
            and attribute(node.func.value, source, "grad"):
        return at_name(node.func, (node.func.value,))
    return None


@detector("grad_set", ast.Assign, idiom="`x.grad = g`")
def _grad_set(node, source):
    targets = [t for t in node.targets if attribute(t, source, "grad", ast.Store)]
    return at_name(targets[0], tuple(targets)) if targets else None


method_detector("retain_grad_call", {"retain_grad"}, idiom="`h.retain_grad()`")
method_detector("backward_call", {"backward"}, idiom="`loss.backward()`")
attribute_detector("grad_read", "grad", idiom="reading `x.grad`")
method_detector("requires_grad_inplace_call", {"requires_grad_"},
                idiom="`x.requires_grad_(...)`")
attribute_detector("requires_grad_assign", "requires_grad", ast.Store,
                   idiom="`x.requires_grad = ...`")
attribute_detector("requires_grad_read", "requires_grad", idiom="reading `x.requires_grad`")


@detector("requires_grad_keyword", ast.keyword, idiom="`torch.tensor(..., requires_grad=True)`")
def _requires_grad_kw(node, source):
    call = source.parent.get(node)  # a Call, or a ClassDef for `class A(B, metaclass=M)`
    if isinstance(call, ast.Call) and source.qualname(call.func) in {"torch.nn.Parameter",
                                                                      "torch.nn.parameter.Parameter"}:
        return None  # part of the nn.Parameter idiom
    return at(node) if node.arg == "requires_grad" and is_true(node.value) else None


attribute_detector("is_leaf_read", "is_leaf", idiom="`x.is_leaf`")


@detector("detach_then_move", ast.Call, idiom="`x.detach().cpu()` / `x.detach().to(device)`")
def _detach_move(node, source):
    name = method(node, source, {"cpu", "to", "cuda"})
    if name is not None and method(name.value, source, {"detach"}) is not None:
        return at_name(name.value.func, (name.value, name.value.func))
    return None


method_detector("detach_call", {"detach"}, idiom="`x.detach()`")


_TORCH_DTYPES = {f"torch.{n}" for n in ("float", "float16", "float32", "float64", "half", "double",
                                         "bfloat16", "int", "int8", "int16", "int32", "int64",
                                         "long", "uint8", "bool")}


@detector("to_device_call", ast.Call, idiom="`x.to(device)` / `x.cpu()` / `x.cuda()`")
def _to_device(node, source):
    name = method(node, source, {"to", "cpu", "cuda"})
    if name is None:
        return None
    args = [*node.args, *(k.value for k in node.keywords if k.arg != "non_blocking")]
    if name.attr == "to" and args and all(source.qualname(a) in _TORCH_DTYPES for a in args):
        return None  # a dtype cast, not a move
    return at_name(name)


@detector("no_grad_context", ast.Call, ast.Attribute, idiom="`torch.no_grad()` / `torch.set_grad_enabled(False)`")
def _no_grad(node, source):
    if isinstance(node, ast.Call):
        if function(node, source, {"torch.no_grad", "torch.set_grad_enabled", "torch.enable_grad"}):
            return at(node, (node.func,))
        return None
    # the bare decorator form: @torch.no_grad
    if source.qualname(node) == "torch.no_grad" and isinstance(source.parent.get(node), ast.FunctionDef):
        return at(node)
    return None


@detector("inference_mode_context", ast.Call, ast.Attribute, idiom="`torch.inference_mode()`")
def _inference_mode(node, source):
    if isinstance(node, ast.Call):
        return at(node, (node.func,)) if function(node, source, {"torch.inference_mode"}) else None
    if source.qualname(node) == "torch.inference_mode" and isinstance(source.parent.get(node), ast.FunctionDef):
        return at(node)
    return None


@detector("register_hook_call", ast.Call, idiom="`x.register_hook(fn)` and other `register_*hook` calls")
def _hook(node, source):
    if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("register_") \
            and node.func.attr.endswith("hook") and source.qualname(node.func) is None:
        return at_name(node.func)
    return None


@detector("checkpoint_call", ast.Call, idiom="`torch.utils.checkpoint.checkpoint(fn, x)`")
def _checkpoint(node, source):
    name = source.qualname(node.func)
    if name is not None and name.startswith("torch.utils.checkpoint."):
        return at(node, (node.func,))
    return None


function_detector("manual_seed_call", {"torch.manual_seed", "torch.random.manual_seed",
                                       "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"},
                  idiom="`torch.manual_seed(n)`")
function_detector("from_numpy_call", {"torch.from_numpy", "torch.as_tensor"},
                  idiom="`torch.from_numpy(a)` / `torch.as_tensor(a)`")
function_detector("torch_compare_call",
                  {"torch.testing.assert_close", "torch.allclose", "torch.testing.assert_allclose"},
                  idiom="`torch.testing.assert_close(a, b)` / `torch.allclose(a, b)`")


# ==================================================================== training idioms ====
function_detector("clip_grad_call",
                  {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                   "torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad.clip_grad_norm_",
                   "torch.nn.utils.clip_grad.clip_grad_value_"},
                  idiom="`torch.nn.utils.clip_grad_norm_(...)` / `clip_grad_value_(...)`")


@detector("torch_optimizer_call", ast.Call, idiom="`torch.optim.SGD(model.parameters(), lr=...)`")
def _torch_optimizer(node, source):
    name = source.qualname(node.func) or ""
    module, _, cls = name.rpartition(".")
    return at(node, (node.func,)) if module == "torch.optim" and cls[:1].isupper() else None


@detector("optimizer_step_call", ast.Call, idiom="`optimizer.step()`")
def _optimizer_step(node, source):
    name = method(node, source, {"step"})
    return at_name(name) if name is not None and not node.args and not node.keywords else None


method_detector("parameters_call", {"parameters", "named_parameters"},
                idiom="`model.parameters()` / `model.named_parameters()`")


# ===================================================================== module idioms ====
@detector("parameter_call", ast.Call, idiom="`nn.Parameter(t)`")
def _parameter(node, source):
    names = {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}
    return at(node, (node.func, *node.keywords)) if function(node, source, names) else None


function_detector("torch_linear_call", {"torch.nn.Linear"},
                  idiom="`nn.Linear(d_in, d_out)` (and its weights)")
method_detector("load_state_dict_call", {"load_state_dict"}, idiom="`model.load_state_dict(state_dict)`")


@detector("train_call", ast.Call, idiom="`model.train()`")
def _train(node, source):
    name = method(node, source, {"train"})
    return at_name(name) if name is not None and len(node.args) <= 1 and not node.keywords else None


@detector("eval_call", ast.Call, idiom="`model.eval()`")
def _eval(node, source):
    name = method(node, source, {"eval"})
    return at_name(name) if name is not None and not node.args and not node.keywords else None


# ====================================================================== tensor idioms ====
@detector("torch_where_call", ast.Call, idiom="`torch.where(cond, a, b)`")
def _where(node, source):
    return at(node, (node.func,)) if function(node, source, {"torch.where"}) and len(node.args) == 3 else None


@detector("transpose_call", ast.Call, ast.Attribute, idiom="`x.transpose(a, b)` / `x.t()` / `x.T`")
def _transpose(node, source):
    if isinstance(node, ast.Call):
        name = method(node, source, {"transpose", "t"})
        if name is None or (name.attr == "transpose" and len(node.args) + len(node.keywords) != 2):
            return None
        return at_name(name, (name,))
    return at_name(node) if attribute(node, source, "T") or attribute(node, source, "mT") else None


method_detector("unsqueeze_call", {"unsqueeze"}, idiom="`x.unsqueeze(d)`")
method_detector("clone_call", {"clone"}, idiom="`x.clone()`")


@detector("shape_read", ast.Attribute, ast.Call, idiom="`x.shape` / `x.size()`")
def _shape(node, source):
    if isinstance(node, ast.Call):
        name = method(node, source, {"size"})
        return None if name is None else at_name(name, (name,))
    return at_name(node) if attribute(node, source, "shape") else None


_RENAMED = {
    "item": "`.into_scalar()`", "tolist": "`.to_data().to_list()`", "numpy": "`.to_data().to_numpy()`",
    "view": "`.reshape(dims)`", "dim": "`.rank()`", "numel": "`.num_elements()`",
    "masked_fill": "`.mask_fill(mask, value)`", "squeeze": "`.squeeze_dim(d)`",
    "type_as": "`.cast(other.dtype())`", "long": "`.int()`", "double": "`.cast(DType.F64)`",
}


@detector("renamed_method_call", ast.Call, idiom="`x.item()`, `x.view(...)`, `x.tolist()` and other renamed methods")
def _renamed(node, source):
    name = method(node, source, _RENAMED)
    if name is None or (name.attr == "squeeze" and not node.args):  # squeeze() exists
        return None
    return at_name(name, hint=f"`.{name.attr}(...)` is {_RENAMED[name.attr]} in burn_torch")


@detector("data_read", ast.Attribute, idiom="`x.data`")
def _data(node, source):
    return at_name(node) if attribute(node, source, "data") or attribute(node, source, "data", ast.Store) else None


def _reduction(node, source, names, with_dim: bool, literal_dim: bool = False):
    """A ``.name(...)`` reduction (or ``torch.name(x, ...)``) without ``keepdim=True``;
    ``with_dim`` selects the calls that pass a dim (True) or none at all (False).
    ``literal_dim``: only an integer literal or ``dim=`` counts as a dim (``x.max(y)`` is an
    elementwise maximum)."""
    name = method(node, source, names)
    args = list(node.args) if isinstance(node, ast.Call) else []
    if name is None:
        if not isinstance(node, ast.Call):
            return None
        qual = source.qualname(node.func)
        if qual is None or qual.rpartition(".")[::2] not in {("torch", n) for n in names} or not args:
            return None
        args = args[1:]
    keepdim = keyword(node, "keepdim")
    keepdim = keepdim.value if keepdim is not None else (args[1] if len(args) > 1 else None)
    if is_true(keepdim):
        return None
    has_dim = keyword(node, "dim") is not None or (
        bool(args) and (not literal_dim or _int_literal(args[0])))
    if literal_dim and args and not has_dim:
        return None
    if has_dim != with_dim:
        return None
    return at_name(name) if name is not None else at(node, (node.func,))


def _int_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


@detector("sum_dim_reduction", ast.Call, idiom="`x.sum(dim)` / `x.prod(dim)` without `keepdim=True`")
def _sum_dim(node, source):
    return _reduction(node, source, {"sum", "prod"}, True)


@detector("mean_dim_reduction", ast.Call, idiom="`x.mean(dim)` without `keepdim=True`")
def _mean_dim(node, source):
    return _reduction(node, source, {"mean"}, True)


@detector("max_dim_reduction", ast.Call, idiom="`x.max(dim)` / `x.min(dim)`")
def _max_dim(node, source):
    return _reduction(node, source, {"max", "min"}, True, literal_dim=True)


@detector("argmax_reduction", ast.Call, idiom="`x.argmax(dim)` / `x.argmin(dim)` / `x.argmax()`")
def _argmax(node, source):
    return _reduction(node, source, {"argmax", "argmin"}, True) or \
        _reduction(node, source, {"argmax", "argmin"}, False)


@detector("full_reduction", ast.Call, idiom="`x.sum()` / `x.mean()` / `x.max()` (a full reduction)")
def _full(node, source):
    return _reduction(node, source, {"sum", "mean", "prod", "max", "min"}, False)


@detector("inplace_method_call", ast.Call, idiom="in-place methods ending in `_` (`x.add_(1)`)")
def _inplace(node, source):
    if not isinstance(node.func, ast.Attribute):
        return None
    attr = node.func.attr
    if not attr.endswith("_") or attr.startswith("_") or len(attr) < 2:
        return None
    qual = source.qualname(node.func)
    if qual is not None and not qual.startswith("torch.nn.init."):
        return None
    return at_name(node.func)
