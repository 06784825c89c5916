"""What each expression of a file is: a type and dataflow pass the detectors read.

``Analysis`` walks a parsed file statement by statement (module level first, then every
function body with the module's final bindings visible, twice so that call sites and return
values inform parameters and results) and records a *kind* for every expression it evaluates:

* ``TENSOR``: a torch tensor computed by an operation (an intermediate, a batch, a loss);
* ``PARAM``: a leaf that requires grad (``nn.Parameter``, ``requires_grad=True`` tensors, the
  items of ``model.parameters()``, ``module.weight``);
* ``MODULE`` (``LINEAR`` for ``nn.Linear`` and its subclasses), ``OPTIMIZER``, ``SCHEDULER``,
  ``SCALER`` (AMP's GradScaler), ``LOADER`` (an iterable of batches), ``DISTRIBUTION``;
* ``FACTORY``: something that builds a module when called: a module class of the file or of
  torchvision, ``models.__dict__[arch]``, and the constructor arguments that receive one
  (``base_encoder`` in ``base_encoder(num_classes=dim)``);
* ``NUMPY`` (an ndarray), ``BURN`` (anything made from ``burn_torch`` names), ``TORCH`` (a torch
  value of no known type, named so: ``torch_model``, ``grads_pt``), ``FOREIGN`` (made by a
  third-party library such as transformers or gym), ``OTHER`` (a known non-tensor: numbers,
  strings, argparse namespaces), ``UNKNOWN``;
* a tuple of kinds for a tuple, ``Iter(kind)`` for a list, dict or iterable of ``kind``, and
  ``Instance(cls)`` for an instance of the file's own class (shown to detectors as what the
  class derives from), whose attributes and methods are followed.

Where nothing else tells, names do (``model``, ``optimizer``, ``train_loader``), and so do
annotations (``t: torch.Tensor``). The analysis also knows the file's imports
(``qualname``), each node's parent, and whether the file is a *side-by-side* file: one
that imports burn_torch and never lets a torch value meet a burn_torch value (its torch code is
a reference to compare with, not code to port).
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Union

TENSOR, PARAM, MODULE, LINEAR = "tensor", "param", "module", "module:linear"
OPTIMIZER, SCHEDULER, SCALER, LOADER = "optimizer", "scheduler", "scaler", "loader"
NUMPY, BURN, OTHER, UNKNOWN = "numpy", "burn", "other", "unknown"
TORCH = "torch"  # a torch value of no known type (`torch_run`, `grads_pt`): reference code
FOREIGN = "foreign"  # made by a third-party library (transformers, gym...): stays as it is
NONE = "none"  # the None constant: merged with another kind, it is that kind (Optional)
DISTRIBUTION = "distribution"  # a torch.distributions object: sample() and log_prob() are tensors
FACTORY = "factory"  # a module class or factory not yet called (`models.resnet50`, `base_encoder`)


@dataclass(frozen=True)
class Iter:
    """An iterable whose items are of kind ``item``."""

    item: "Kind"


@dataclass(frozen=True)
class Instance:
    """An instance of the file's own class ``cls`` (its attributes and methods are known)."""

    cls: str


Kind = Union[str, tuple, Iter, Instance]

TENSORS = (TENSOR, PARAM)


def is_tensor(kind: Kind) -> bool:
    return kind in TENSORS


def is_module(kind: Kind) -> bool:
    return isinstance(kind, str) and kind.startswith(MODULE)


# Methods of a torch tensor that do not return a tensor.
_TENSOR_NON_TENSOR_METHODS = {"item": OTHER, "tolist": OTHER, "size": OTHER, "dim": OTHER,
                              "numel": OTHER, "numpy": NUMPY, "backward": OTHER,
                              "register_hook": OTHER, "data_ptr": OTHER, "element_size": OTHER,
                              "is_contiguous": OTHER, "get_device": OTHER, "equal": OTHER,
                              "stride": OTHER, "storage": OTHER}
# Attributes of a torch tensor that are tensors (the others are metadata: shape, device...).
_TENSOR_TENSOR_ATTRS = {"T", "mT", "H", "mH", "grad", "data", "real", "imag"}
# Module methods returning the module itself.
_MODULE_SELF_METHODS = {"to", "cuda", "cpu", "train", "eval", "float", "double", "half",
                        "bfloat16", "requires_grad_", "apply", "share_memory", "type"}
_MODULE_ITER_METHODS = {"parameters": Iter(PARAM), "buffers": Iter(TENSOR),
                        "named_parameters": Iter((OTHER, PARAM)),
                        "named_buffers": Iter((OTHER, TENSOR)), "modules": Iter(MODULE),
                        "children": Iter(MODULE), "named_modules": Iter((OTHER, MODULE)),
                        "named_children": Iter((OTHER, MODULE))}
# torch functions whose result is not a tensor.
_TORCH_NON_TENSOR = ("torch.device", "torch.dtype", "torch.finfo", "torch.iinfo", "torch.Size",
                     "torch.manual_seed", "torch.save", "torch.no_grad",
                     "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
                     "torch.autocast", "torch.Generator", "torch.set_", "torch.get_",
                     "torch.is_", "torch.cuda.", "torch.backends.", "torch.distributed.",
                     "torch.multiprocessing.", "torch.amp.autocast", "torch.cpu.",
                     "torch.accelerator.", "torch.fx.", "torch.version.", "torch.hub.",
                     "torch.export.", "torch.overrides.", "torch.mps.", "torch.xpu.",
                     "torch.utils.data.", "torch.testing.",
                     "torch.jit.", "torch.onnx.", "torch.profiler.", "torch.random.",
                     "torch.use_deterministic_algorithms", "torch.compile",
                     "torch.nn.init.calculate_gain")
# torch functions returning a tuple or list of tensors.
_TORCH_SEQUENCES = {"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit",
                    "meshgrid", "broadcast_tensors", "_unflatten_dense_tensors"}
# burn_torch methods whose result is a Python value, not a tensor.
_BURN_NUMBERS = {"into_scalar", "to_list", "dims", "rank", "num_elements", "is_tracked",
                 "is_require_grad", "is_autodiff", "num_params"}
_MODULE_WRAPPERS = ("torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
                    "torch.nn.parallel.DataParallel", "torch.compile", "torch.jit.script",
                    "torch.distributed.fsdp.FullyShardedDataParallel")

# Libraries whose objects a port keeps as they are (a Hugging Face torch model stays torch).
_THIRD_PARTY = {"transformers", "timm", "sklearn", "PIL", "matplotlib", "gym", "gymnasium",
                "tiktoken", "datasets", "pandas", "scipy", "cv2", "wandb", "tensorboardX"}

# Names that say what a function parameter holds when nothing else does.
_PARAM_NAME_KINDS = (
    (("loader", "dataloader"), LOADER),
    (("optimizer", "optim", "opt", "optimizerd", "optimizerg"), OPTIMIZER),
    (("scheduler", "lr_scheduler"), SCHEDULER),
    (("scaler",), SCALER),
    (("model", "net", "module", "netg", "netd", "generator", "discriminator", "policy",
      "encoder", "decoder", "criterion", "loss_fn", "layer", "m"), MODULE),
    (("args", "config", "cfg", "device", "epoch", "epochs", "path", "name", "env"), OTHER),
)


def _hook_arguments(register: str, names: list[str]) -> dict[str, Kind]:
    """The kinds of a hook's parameters: a tensor hook gets the gradient; a module hook gets
    the module, then tuples of tensors (a forward hook's last argument, the output, is one)."""
    if register == "register_hook" or len(names) == 1:
        return {names[-1]: TENSOR} if names else {}
    kinds = {n: Iter(TENSOR) for n in names[1:]}
    if "forward_hook" in register and len(names) > 2:
        kinds[names[-1]] = TENSOR
    return kinds


def kind_from_name(name: str) -> Kind:
    """The kind a name suggests (``train_loader``: LOADER; ``torch_model``, ``grads_pt``: a
    torch value), else UNKNOWN."""
    low = name.lower()
    if low.startswith("torch_") or low.endswith(("_pt", "_torch")):
        return TORCH
    for names, kind in _PARAM_NAME_KINDS:
        if low in names or (len(low) > 4 and any(low.endswith(n) for n in names if len(n) > 2)):
            return kind
    return UNKNOWN


def item_kind(kind: Kind) -> Kind:
    """The kind of one item when iterating over a value of ``kind``."""
    if isinstance(kind, Iter):
        return kind.item
    if kind in (LOADER,):
        return TENSOR  # a batch (or a tuple of tensors, destructured as tensors)
    if is_tensor(kind):
        return TENSOR
    if kind in (NUMPY, BURN):
        return kind
    return UNKNOWN


def merge(a: Kind, b: Kind) -> Kind:
    """The kind of a value that is either ``a`` or ``b``."""
    if a == b or b == NONE:
        return a
    if a == NONE:
        return b
    if b == UNKNOWN:
        return a
    if a == UNKNOWN:
        return b
    if is_tensor(a) and is_tensor(b):
        return TENSOR
    if isinstance(a, Iter) and b == OTHER:  # a container that starts as an empty literal
        return a
    if isinstance(b, Iter) and a == OTHER:
        return b
    return UNKNOWN


class Analysis:
    """The parsed file with each expression's kind (``kind``), its imports
    (``qualname``), each node's parent and its classes and functions."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parent: dict[ast.AST, ast.AST] = {}
        self.imports: dict[str, str] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.functions: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
                prefix = "." * node.level + (node.module or "")
                for a in node.names:  # `from . import dist_util`: `.dist_util`, the project's own
                    self.imports[a.asname or a.name] = f"{prefix}.{a.name}" if node.module else f"{prefix}{a.name}"
            elif isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and not isinstance(self.parent.get(node), ast.ClassDef):
                self.functions.setdefault(node.name, node)
        stores = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        for name in set(stores) & self.imports.keys():
            del self.imports[name]  # `import model` then `model = model.RNNModel(...)`
        for node in tree.body:  # `ce = torch.nn.functional.cross_entropy`, assigned once: an alias
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and stores.count(node.targets[0].id) == 1:
                q = self.qualname(node.value)
                if q is not None:
                    self.imports[node.targets[0].id] = q
        self.burn_file = any(q == "burn_torch" or q.startswith("burn_torch.")
                             for q in self.imports.values())
        self.kinds: dict[ast.AST, Kind] = {}
        self.instances: dict[ast.AST, str] = {}  # expression → the file's class it is an instance of
        self.attrs: dict[str, dict[str, Kind]] = {name: {} for name in self.classes}
        self.returns: dict[str, Kind] = {}
        self.call_args: dict[str, dict[str, Kind]] = {}
        self._module_classes = {name for name in self.classes if self._is_module_class(name, set())}
        self._linear_classes = {name for name in self.classes if self._subclasses(name, "torch.nn.Linear", set())}
        self._function_classes = {name for name in self.classes
                                  if self._subclasses(name, "torch.autograd.Function", set())
                                  or self._subclasses(name, "torch.autograd.function.Function", set())}
        self._burn_classes = {name for name, c in self.classes.items()
                              if any((self.qualname(b) or "").startswith("burn_torch.") for b in c.bases)}
        for _ in range(2):
            self._run()
        self.side_by_side = self.burn_file and not self._torch_meets_burn()

    def _torch_meets_burn(self) -> bool:
        """Whether a torch value and a burn_torch value meet (a torch module called on a
        burn_torch tensor, an operator between the two, a torch function given a burn_torch
        value): then the file is a port in progress, not a side-by-side comparison."""
        torch_kinds = (TENSOR, PARAM)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.BinOp):
                kinds = {self.kind(node.left), self.kind(node.right)}
                if BURN in kinds and kinds & set(torch_kinds):
                    return True
            elif isinstance(node, ast.Call):
                args = [self.kind(x) for x in (*node.args, *(k.value for k in node.keywords))]
                if BURN not in args:
                    continue
                q = self.qualname(node.func) or ""
                if is_module(self.kind(node.func)) or q.split(".")[0] == "torch":
                    return True
        return False

    # ------------------------------------------------------------------ queries ----
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

    def kind(self, expr: ast.AST) -> Kind:
        """The recorded kind of ``expr`` (UNKNOWN for an expression the walk did not reach)."""
        return self.kinds.get(expr, UNKNOWN)

    def _called(self, expr: ast.AST) -> bool:
        parent = self.parent.get(expr)
        return isinstance(parent, ast.Call) and parent.func is expr

    def is_discarded(self, call: ast.AST) -> bool:
        """Whether ``call``'s result is thrown away (the call is an expression statement)."""
        return isinstance(self.parent.get(call), ast.Expr)

    def expects_error(self, node: ast.AST) -> bool:
        """Whether ``node`` is in the body of a ``try`` that handles exceptions (code showing
        that a call raises)."""
        child, parent = node, self.parent.get(node)
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.Module)):
            if isinstance(parent, ast.Try) and parent.handlers and child in parent.body:
                return True
            child, parent = parent, self.parent.get(parent)
        return False

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The innermost function (or the module) containing ``node``."""
        node = self.parent.get(node)
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                         ast.Lambda, ast.Module)):
            node = self.parent.get(node)
        return node if node is not None else self.tree

    def owner_class(self, expr: ast.AST) -> str | None:
        """The file's class whose instance ``expr`` is, as the walk found it (or None)."""
        return self.instances.get(expr)

    def defines(self, cls_name: str, method: str) -> bool:
        """Whether the file's class ``cls_name`` defines ``method`` itself."""
        return self._method_of(cls_name, method) is not None

    def enclosing_class(self, node: ast.AST) -> ast.ClassDef | None:
        node = self.parent.get(node)
        while node is not None and not isinstance(node, ast.ClassDef):
            node = self.parent.get(node)
        return node

    # --------------------------------------------------------------- the walk ----
    def _subclasses(self, name: str, qualname: str, seen: set) -> bool:
        """Whether the file's class ``name`` derives from the imported class ``qualname``."""
        cls = self.classes.get(name)
        if cls is None or name in seen:
            return False
        seen.add(name)
        return any(self.qualname(b) == qualname or
                   (isinstance(b, ast.Name) and self._subclasses(b.id, qualname, seen)) for b in cls.bases)

    def in_data_pipeline(self, node: ast.AST) -> bool:
        """Whether ``node`` is data loading, which a port keeps on torch (burn_torch trains on
        what ``torch.utils.data`` yields): code in a ``torch.utils.data.Dataset`` subclass, in a
        function the file gives a DataLoader as ``collate_fn``/``worker_init_fn``, in a class
        whose instances the file gives a DataLoader as its dataset, in a tokenizer, or in the
        arguments of a ``torchvision.transforms`` call."""
        pipeline = self._pipeline_names()
        scope = self.parent.get(node)
        while scope is not None:
            if isinstance(scope, ast.Call) and (self.qualname(scope.func) or "").startswith(
                    "torchvision.transforms."):
                return True  # `transforms.Lambda(lambda x: torch.flatten(x))`
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and (scope.name in pipeline or "tokeniz" in scope.name.lower()):
                return True
            if isinstance(scope, ast.ClassDef) and (
                    self._subclasses(scope.name, "torch.utils.data.Dataset", set())
                    or self._subclasses(scope.name, "torch.utils.data.dataset.Dataset", set())):
                return True
            scope = self.parent.get(scope)
        return False

    def _pipeline_names(self) -> set[str]:
        """The file's functions and classes a DataLoader is given (``collate_fn=f``,
        ``DataLoader(MyData(...))``)."""
        if getattr(self, "_pipeline", None) is None:
            names: set[str] = set()
            for call in (n for n in ast.walk(self.tree) if isinstance(n, ast.Call)):
                q = self.qualname(call.func) or ""
                if not (q.endswith("DataLoader") or q.endswith(".data.DataLoader")):
                    continue
                given = [*call.args[:1], *(k.value for k in call.keywords
                                           if k.arg in ("dataset", "collate_fn", "worker_init_fn"))]
                for value in given:
                    target = value.func if isinstance(value, ast.Call) else value
                    if isinstance(target, ast.Name):
                        names.add(target.id)
            self._pipeline = names
        return self._pipeline

    def _is_module_class(self, name: str, seen: set) -> bool:
        cls = self.classes.get(name)
        if cls is None or name in seen:
            return False
        seen.add(name)
        for base in cls.bases:
            q = self.qualname(base)
            if q is not None and (q.startswith("torch.nn.") or q == "torch.nn.Module"):
                return "Function" not in q
            if isinstance(base, ast.Name) and self._is_module_class(base.id, seen):
                return True
        return False

    def _run(self) -> None:
        module_env: dict[str, Kind] = {}
        self._block(self.tree.body, [module_env], None, defer := [])
        for fn, envs, cls in defer:
            self._function(fn, envs, cls)

    def _function(self, fn, envs, cls) -> None:
        env: dict[str, Kind] = {}
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        method = cls is not None and fn in cls.body
        bound = self.call_args.get(f"{cls.name}.{fn.name}" if method else fn.name, {})
        for i, a in enumerate([*positional, *args.kwonlyargs]):
            if i == 0 and cls is not None and a.arg in ("self", "cls"):
                env[a.arg] = Instance(cls.name)
            elif cls is not None and cls.name in self._module_classes and fn.name == "forward":
                env[a.arg] = TENSOR
            elif cls is not None and cls.name in self._function_classes and fn.name in ("forward", "backward"):
                env[a.arg] = OTHER if i == 0 else TENSOR  # (ctx, tensors...) of an autograd.Function
            elif a.annotation is not None and self._annotated(a.annotation) != UNKNOWN:
                env[a.arg] = self._annotated(a.annotation)
            else:
                env[a.arg] = bound.get(a.arg, kind_from_name(a.arg))
        for a in (args.vararg, args.kwarg):
            if a is not None:
                env[a.arg] = OTHER
        defer: list = []
        returned = self._block(fn.body, [*envs, env], cls, defer)
        self.returns[fn.name if cls is None else f"{cls.name}.{fn.name}"] = returned
        for inner, inner_envs, inner_cls in defer:
            self._function(inner, inner_envs, inner_cls)

    def _annotated(self, annotation: ast.AST) -> Kind:
        """The kind an annotation states: ``torch.Tensor``, ``nn.Module``, a burn_torch type, a
        container of them (``Mapping[str, torch.Tensor]``)."""
        if isinstance(annotation, ast.Subscript):
            items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            item = self._annotated(items[-1])
            return Iter(item) if item != UNKNOWN else UNKNOWN
        q = self.qualname(annotation) or ""
        if q.split(".")[0] == "burn_torch":
            return BURN
        if q == "torch.Tensor":
            return TENSOR
        if q in ("torch.nn.Module", "torch.nn.modules.module.Module"):
            return MODULE
        if q.startswith("torch.optim."):
            return OPTIMIZER
        return UNKNOWN

    def _block(self, body, envs, cls, defer) -> Kind:
        """Walks statements in order; returns the merged kind of what they ``return``."""
        returned: Kind = UNKNOWN
        for stmt in body:
            r = self._stmt(stmt, envs, cls, defer)
            if r is not None:
                returned = merge(returned, r)
        return returned

    def _stmt(self, stmt, envs, cls, defer) -> Kind | None:
        env = envs[-1]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in stmt.decorator_list:
                self._expr(d, envs, cls)
            env[stmt.name] = OTHER
            defer.append((stmt, envs, cls))
            return None
        if isinstance(stmt, ast.ClassDef):
            env[stmt.name] = OTHER
            for item in sorted(stmt.body, key=lambda s: getattr(s, "name", "") != "__init__"):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for d in item.decorator_list:
                        self._expr(d, envs, cls)
                    defer.append((item, envs, stmt))
                else:
                    self._stmt(item, [*envs, {}], None, defer)
            return None
        if isinstance(stmt, ast.Assign):
            kind = self._expr(stmt.value, envs, cls)
            for target in stmt.targets:
                self._bind(target, kind, envs, cls)
            return None
        if isinstance(stmt, ast.AnnAssign):
            kind = self._expr(stmt.value, envs, cls) if stmt.value is not None else UNKNOWN
            self._bind(stmt.target, kind, envs, cls)
            return None
        if isinstance(stmt, ast.AugAssign):
            value = self._expr(stmt.value, envs, cls)
            target = self._expr(stmt.target, envs, cls)
            self._bind(stmt.target, TENSOR if is_tensor(target) or is_tensor(value) else target,
                       envs, cls, keep_param=True)
            return None
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            kind = self._expr(stmt.iter, envs, cls)
            self._bind(stmt.target, item_kind(kind), envs, cls)
            r1 = self._block(stmt.body, envs, cls, defer)
            r2 = self._block(stmt.orelse, envs, cls, defer)
            return merge(r1, r2)
        if isinstance(stmt, ast.While):
            self._expr(stmt.test, envs, cls)
            return merge(self._block(stmt.body, envs, cls, defer),
                         self._block(stmt.orelse, envs, cls, defer))
        if isinstance(stmt, ast.If):
            self._expr(stmt.test, envs, cls)
            narrowed = self._narrowing(stmt.test)
            saved = {name: env.get(name) for name in narrowed}
            env.update(narrowed)
            r1 = self._block(stmt.body, envs, cls, defer)
            env.update({name: UNKNOWN for name in narrowed})  # else: not what isinstance checked
            r2 = self._block(stmt.orelse, envs, cls, defer)
            for name, kind in saved.items():
                if kind is None:
                    env.pop(name, None)
                else:
                    env[name] = kind
            return merge(r1, r2)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                kind = self._expr(item.context_expr, envs, cls)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, kind, envs, cls)
            return self._block(stmt.body, envs, cls, defer)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            returned = self._block(stmt.body, envs, cls, defer)
            for handler in stmt.handlers:
                if handler.name:
                    env[handler.name] = OTHER
                returned = merge(returned, self._block(handler.body, envs, cls, defer))
            returned = merge(returned, self._block(stmt.orelse, envs, cls, defer))
            return merge(returned, self._block(stmt.finalbody, envs, cls, defer))
        if isinstance(stmt, ast.Return):
            return self._expr(stmt.value, envs, cls) if stmt.value is not None else OTHER
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            return None
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self._expr(child, envs, cls)
        return None

    def _narrowing(self, test) -> dict[str, Kind]:
        """``isinstance(m, nn.Linear)`` makes ``m`` a Linear module inside the branch."""
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
                and test.func.id == "isinstance" and len(test.args) == 2 \
                and isinstance(test.args[0], ast.Name):
            types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
            quals = [self.qualname(t) or "" for t in types]
            if quals and all(q == "torch.Tensor" for q in quals):
                return {test.args[0].id: TENSOR}
            if quals and all(q == "torch.nn.Linear" for q in quals):
                return {test.args[0].id: LINEAR}
            if quals and all(q.startswith("torch.nn.") for q in quals):
                return {test.args[0].id: MODULE}
        return {}

    def _bind(self, target, kind, envs, cls, keep_param: bool = False) -> None:
        if isinstance(target, ast.Name):
            if kind == UNKNOWN:
                kind = kind_from_name(target.id)
            self.kinds[target] = self._public(kind)
            if keep_param and envs[-1].get(target.id) == PARAM:
                return
            envs[-1][target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.kinds[target] = kind
            elts = target.elts
            for i, elt in enumerate(elts):
                if isinstance(kind, tuple) and len(kind) == len(elts):
                    sub = kind[i]
                elif isinstance(kind, Iter):
                    sub = kind.item
                elif is_tensor(kind) or kind in (NUMPY, BURN):
                    sub = TENSOR if is_tensor(kind) else kind
                else:
                    sub = UNKNOWN
                self._bind(elt.value if isinstance(elt, ast.Starred) else elt, sub, envs, cls)
        elif isinstance(target, ast.Attribute):
            self._expr(target.value, envs, cls)
            owner = self._lookup_self(target.value, envs)
            if kind == UNKNOWN:
                kind = kind_from_name(target.attr)
            self.kinds[target] = self._public(kind)
            if owner is not None:
                attrs = self.attrs.setdefault(owner, {})
                previous = attrs.get(target.attr)
                attrs[target.attr] = kind if previous is None else merge(previous, kind)
        elif isinstance(target, ast.Subscript):
            self._expr(target, envs, cls)
            if is_tensor(kind):  # `out[split] = loss`: a container of tensors
                self._fill(target.value, kind, envs)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, UNKNOWN, envs, cls)

    def _fill(self, container, item, envs) -> None:
        """Records that the list or dict ``container`` (a name or ``self.attr``) holds ``item``s."""
        if isinstance(container, ast.Name):
            if self._lookup(container.id, envs) in (OTHER, UNKNOWN) or \
                    isinstance(self._lookup(container.id, envs), Iter):
                for env in reversed(envs):
                    if container.id in env:
                        env[container.id] = Iter(item)
                        return
                envs[-1][container.id] = Iter(item)
        elif isinstance(container, ast.Attribute):
            owner = self._lookup_self(container.value, envs)
            if owner is not None and self.attrs.get(owner, {}).get(container.attr) in (OTHER, UNKNOWN, None):
                self.attrs.setdefault(owner, {})[container.attr] = Iter(item)

    def _lookup_self(self, expr, envs) -> str | None:
        """The file's class whose instance ``expr`` (a name or an attribute chain) is, if any."""
        kind = None
        if isinstance(expr, ast.Name):
            kind = self._lookup(expr.id, envs)
        elif isinstance(expr, ast.Attribute):
            owner = self._lookup_self(expr.value, envs)
            kind = self.attrs.get(owner, {}).get(expr.attr) if owner is not None else None
        return kind.cls if isinstance(kind, Instance) else None

    def _public(self, kind: Kind) -> Kind:
        """What an instance of the file's own class is to the detectors: a burn_torch value, a
        (Linear) module or another object."""
        if not isinstance(kind, Instance):
            return kind
        if kind.cls in self._burn_classes:
            return BURN
        if kind.cls in self._linear_classes:
            return LINEAR
        return MODULE if kind.cls in self._module_classes else OTHER

    def _lookup(self, name: str, envs) -> Kind:
        for env in reversed(envs):
            if name in env:
                return env[name]
        if name in self.imports:
            q = self.imports[name]
            return BURN if q.split(".")[0] == "burn_torch" else OTHER
        return UNKNOWN if name[:1].isupper() else kind_from_name(name)  # a class is no value

    def _expr(self, expr, envs, cls) -> Kind:
        kind = self._eval(expr, envs, cls)
        self.kinds[expr] = self._public(kind)
        if isinstance(kind, Instance):
            self.instances[expr] = kind.cls
        return kind

    def _eval(self, expr, envs, cls) -> Kind:
        if isinstance(expr, ast.Name):
            kind = self._lookup(expr.id, envs)
            if kind == OTHER and expr.id in self._module_classes and isinstance(expr.ctx, ast.Load) \
                    and not (isinstance(self.parent.get(expr), ast.Call) and self.parent[expr].func is expr):
                return FACTORY  # `ResNet(ResidualBlock, ...)`: the class is passed to be called
            return kind
        if isinstance(expr, ast.Constant) and expr.value is None:
            return NONE
        if isinstance(expr, ast.Constant) or isinstance(expr, (ast.JoinedStr, ast.Lambda)):
            for child in ast.iter_child_nodes(expr):
                if isinstance(child, ast.expr) and not isinstance(expr, ast.Lambda):
                    self._expr(child, envs, cls)
            return OTHER
        if isinstance(expr, ast.FormattedValue):
            self._expr(expr.value, envs, cls)
            if expr.format_spec is not None:
                self._expr(expr.format_spec, envs, cls)
            return OTHER
        if isinstance(expr, ast.Tuple):
            return tuple(self._expr(e, envs, cls) for e in expr.elts)
        if isinstance(expr, (ast.List, ast.Set)):
            kinds = [self._expr(e, envs, cls) for e in expr.elts]
            return Iter(kinds[0]) if kinds and all(k == kinds[0] for k in kinds) else OTHER
        if isinstance(expr, ast.Dict):
            for e in [*expr.keys, *expr.values]:
                if e is not None:
                    self._expr(e, envs, cls)
            return OTHER
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            local = {}
            for gen in expr.generators:
                self._bind(gen.target, item_kind(self._expr(gen.iter, [*envs, local], cls)),
                           [*envs, local], cls)
                for cond in gen.ifs:
                    self._expr(cond, [*envs, local], cls)
            if isinstance(expr, ast.DictComp):
                self._expr(expr.key, [*envs, local], cls)
                self._expr(expr.value, [*envs, local], cls)
                return OTHER
            return Iter(self._expr(expr.elt, [*envs, local], cls))
        if isinstance(expr, ast.BinOp):
            left, right = self._expr(expr.left, envs, cls), self._expr(expr.right, envs, cls)
            return self._combine(left, right)
        if isinstance(expr, ast.UnaryOp):
            operand = self._expr(expr.operand, envs, cls)
            return TENSOR if is_tensor(operand) else operand
        if isinstance(expr, ast.BoolOp):
            kinds = [self._expr(v, envs, cls) for v in expr.values]
            out = kinds[0]
            for k in kinds[1:]:
                out = merge(out, k)
            return out
        if isinstance(expr, ast.Compare):
            kinds = [self._expr(expr.left, envs, cls),
                     *(self._expr(c, envs, cls) for c in expr.comparators)]
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return OTHER
            return TENSOR if any(is_tensor(k) for k in kinds) else (
                NUMPY if NUMPY in kinds else BURN if BURN in kinds else OTHER)
        if isinstance(expr, ast.IfExp):
            self._expr(expr.test, envs, cls)
            return merge(self._expr(expr.body, envs, cls), self._expr(expr.orelse, envs, cls))
        if isinstance(expr, ast.Subscript):
            value = self._expr(expr.value, envs, cls)
            self._expr(expr.slice, envs, cls)
            if (self.qualname(expr.value) or "").startswith("torchvision.models.") \
                    and expr.value.attr == "__dict__":
                return FACTORY  # models.__dict__[arch]
            if isinstance(value, tuple) and isinstance(expr.slice, ast.Constant) \
                    and isinstance(expr.slice.value, int) and -len(value) <= expr.slice.value < len(value):
                return value[expr.slice.value]
            if is_tensor(value):
                return TENSOR
            if value in (NUMPY, BURN, FOREIGN, TORCH):
                return value
            if isinstance(value, Iter):
                return value.item if not isinstance(expr.slice, ast.Slice) else value
            return UNKNOWN
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, envs, cls)
        if isinstance(expr, ast.Call):
            return self._call(expr, envs, cls)
        if isinstance(expr, ast.Starred):
            return self._expr(expr.value, envs, cls)
        if isinstance(expr, ast.NamedExpr):
            kind = self._expr(expr.value, envs, cls)
            self._bind(expr.target, kind, envs, cls)
            return kind
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, ast.expr):
                self._expr(child, envs, cls)
        return UNKNOWN

    @staticmethod
    def _combine(left: Kind, right: Kind) -> Kind:
        if is_tensor(left) or is_tensor(right):
            return TENSOR
        for kind in (left, right):  # `losses + [loss]`: a list of tensors
            if isinstance(kind, Iter) and (left == right or OTHER in (left, right)):
                return kind
        for kind in (BURN, NUMPY):
            if kind in (left, right):
                return kind
        if left == OTHER and right == OTHER:
            return OTHER
        return UNKNOWN

    def _attribute(self, expr: ast.Attribute, envs, cls) -> Kind:
        q = self.qualname(expr)
        if q is not None:
            if q.startswith("torchvision.models.") and expr.attr[:1].islower() \
                    and not expr.attr.startswith("_") and not self._called(expr):
                return FACTORY  # `models.resnet50`, passed to be called
            return BURN if q.split(".")[0] == "burn_torch" else OTHER
        if expr.attr == "saved_tensors":  # ctx.saved_tensors of an autograd.Function
            self._expr(expr.value, envs, cls)
            return Iter(TENSOR)
        owner = self._lookup_self(expr.value, envs)
        value = self._public(self._expr(expr.value, envs, cls))
        if owner is not None:
            known = self.attrs.get(owner, {}).get(expr.attr)
            if known is not None:
                return known
            if owner in self._module_classes and expr.attr in ("weight", "bias"):
                return PARAM
            return UNKNOWN
        if value in (BURN, FOREIGN, TORCH):
            return value
        if is_module(value):
            if expr.attr in ("weight", "bias"):
                return PARAM
            if expr.attr == "module":
                return MODULE
            return UNKNOWN
        if expr.attr in ("weight", "bias") and isinstance(expr.value, ast.Attribute) \
                and is_module(self.kind(expr.value.value)):
            return PARAM  # `model.fc.weight`: a layer's parameter, whatever the layer is
        if is_tensor(value):
            return TENSOR if expr.attr in _TENSOR_TENSOR_ATTRS else OTHER
        if value == NUMPY:
            return OTHER if expr.attr in ("shape", "ndim", "size", "dtype") else NUMPY
        if value == OPTIMIZER:
            return OTHER
        return UNKNOWN

    def _call(self, call: ast.Call, envs, cls) -> Kind:
        func = call.func
        q = self.qualname(func)
        arg_kinds = [self._expr(a, envs, cls) for a in call.args]
        kw_kinds = {k.arg: self._expr(k.value, envs, cls) for k in call.keywords}
        if q is not None:
            if isinstance(func, ast.Attribute):
                self._expr(func.value, envs, cls)
            return self._qualified_call(q, call, arg_kinds)
        if isinstance(func, ast.Name):
            name = func.id
            looked_up = self._lookup(name, envs)
            self.kinds[func] = self._public(looked_up)
            if isinstance(looked_up, Instance):
                self.instances[func] = looked_up.cls
            if name in self.classes and self._lookup(name, envs) == OTHER:
                init = self._method_of(name, "__init__")
                if init is not None:
                    self._record_call(init, arg_kinds, kw_kinds, owner=name)
                return Instance(name)
            if name in self.functions:
                self._record_call(self.functions[name], arg_kinds, kw_kinds)
                return self.returns.get(name, UNKNOWN)
            raw = self._lookup(name, envs)
            callee = self._public(raw)
            if isinstance(raw, Instance) and self._method_of(raw.cls, "forward") is not None:
                returned = self.returns.get(f"{raw.cls}.forward", UNKNOWN)
                return returned if returned != UNKNOWN else TENSOR  # `vgg(x)`: what forward returns
            if is_module(callee):
                return TENSOR
            if callee == FACTORY:
                return MODULE
            if callee == BURN:
                return BURN
            if name in ("enumerate",) and arg_kinds:
                return Iter((OTHER, item_kind(arg_kinds[0])))
            if name == "zip":
                return Iter(tuple(item_kind(k) for k in arg_kinds))
            if name in ("list", "tuple", "sorted", "reversed", "iter") and arg_kinds:
                k = arg_kinds[0]
                return k if isinstance(k, Iter) or k == LOADER else Iter(item_kind(k))
            if name == "next" and arg_kinds:
                return item_kind(arg_kinds[0])
            if name in ("getattr", "super", "type", "vars"):
                return UNKNOWN
            if name in ("sum", "max", "min", "abs") and arg_kinds and (
                    is_tensor(arg_kinds[0]) or is_tensor(item_kind(arg_kinds[0]))):
                return TENSOR  # sum(losses) of a list of tensors
            if hasattr(builtins, name):
                return OTHER
            return UNKNOWN
        if isinstance(func, ast.Attribute):
            owner = self._lookup_self(func.value, envs)
            raw_receiver = self._expr(func.value, envs, cls)
            receiver = self._public(raw_receiver)
            if owner is not None:
                known = self._public(self.attrs.get(owner, {}).get(func.attr))
                if known is not None:
                    self.kinds[func] = known  # `self.fc1` in `self.fc1(x)`
                if is_module(known):
                    return TENSOR
                if known == FACTORY:
                    return MODULE
                method = self._method_of(owner, func.attr)
                if method is not None:
                    return self.returns.get(f"{owner}.{func.attr}", UNKNOWN)
                if owner in self._module_classes:
                    return self._module_method(func.attr, MODULE)
                return UNKNOWN
            if func.attr in ("append", "insert") and arg_kinds and is_tensor(arg_kinds[-1]):
                self._fill(func.value, TENSOR, envs)
            if func.attr.startswith("register_") and func.attr.endswith("hook"):
                for arg in call.args:
                    if isinstance(arg, ast.Name) and arg.id in self.functions:
                        fn = self.functions[arg.id]
                        names = [x.arg for x in [*fn.args.posonlyargs, *fn.args.args]]
                        self.call_args.setdefault(arg.id, {}).update(_hook_arguments(func.attr, names))
            if isinstance(raw_receiver, Instance) and func.attr in _MODULE_SELF_METHODS \
                    and raw_receiver.cls in self._module_classes:
                return raw_receiver  # `VGGNet().to(device).eval()` is still the file's VGGNet
            return self._method_call(func.attr, receiver, call)
        return MODULE if self._expr(func, envs, cls) == FACTORY else UNKNOWN

    def _method_of(self, cls_name: str, name: str):
        cls = self.classes.get(cls_name)
        if cls is None:
            return None
        return next((f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and f.name == name), None)

    def _record_call(self, fn, arg_kinds, kw_kinds, owner: str | None = None) -> None:
        """Records the kinds a call passes to ``fn`` (a method of class ``owner``, whose first
        parameter, ``self``, the call does not pass)."""
        bound = self.call_args.setdefault(fn.name if owner is None else f"{owner}.{fn.name}", {})
        names = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]][1 if owner else 0:]
        for name, kind in [*zip(names, arg_kinds), *kw_kinds.items()]:
            if name is None or kind == UNKNOWN:
                continue
            bound[name] = kind if name not in bound else merge(bound[name], kind)

    def _qualified_call(self, q: str, call: ast.Call, arg_kinds) -> Kind:
        root = q.split(".")[0]
        if root == "burn_torch":
            return TORCH if q.endswith(".to_torch") or q.endswith(".to_torch_state_dict") else BURN
        if root == "numpy":
            return NUMPY
        if root == "torchvision":
            return MODULE if ".models." in q else UNKNOWN
        if root in _THIRD_PARTY:
            return FOREIGN
        if root != "torch":
            return OTHER if root in ("argparse", "os", "math", "random", "time",
                                     "collections", "json", "pickle", "logging") else UNKNOWN
        if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return PARAM
        if any(q.startswith(w) for w in _MODULE_WRAPPERS):
            return arg_kinds[0] if arg_kinds and is_module(arg_kinds[0]) else MODULE
        if q == "torch.autograd.grad" or q.rpartition(".")[2] in _TORCH_SEQUENCES:
            return Iter(TENSOR)
        if q == "torch.load":
            return UNKNOWN  # a module, a state dict, anything pickled
        if q.startswith("torch.distributions."):
            return DISTRIBUTION if q.rpartition(".")[2][:1].isupper() else OTHER
        if q.startswith("torch.optim.lr_scheduler."):
            return SCHEDULER
        if q.startswith("torch.optim.") and q.rpartition(".")[2][:1].isupper():
            return OPTIMIZER
        if q.endswith("GradScaler"):
            return SCALER
        if q == "torch.utils.data.DataLoader" or q.endswith(".DataLoader"):
            return LOADER
        if q.startswith("torch.nn.") and not q.startswith(("torch.nn.functional.", "torch.nn.init.",
                                                           "torch.nn.utils.")):
            cls_name = q.rpartition(".")[2]
            if cls_name[:1].isupper():
                return LINEAR if cls_name == "Linear" else MODULE
        if q.startswith("torch.nn.utils."):
            return OTHER
        if any(q == p or (p.endswith((".", "_")) and q.startswith(p)) for p in _TORCH_NON_TENSOR):
            return OTHER
        for k in call.keywords:
            if k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True:
                return PARAM
        return TENSOR

    @staticmethod
    def _module_method(name: str, receiver: Kind) -> Kind:
        if name in _MODULE_SELF_METHODS:
            return receiver
        if name in _MODULE_ITER_METHODS:
            return _MODULE_ITER_METHODS[name]
        if name in ("forward", "__call__"):
            return TENSOR
        if name in ("state_dict", "load_state_dict", "zero_grad", "register_forward_hook",
                    "register_backward_hook", "register_full_backward_hook", "extra_repr"):
            return OTHER
        return UNKNOWN

    def _method_call(self, name: str, receiver: Kind, call: ast.Call) -> Kind:
        if receiver == BURN and name in ("to_torch", "inner"):
            return TORCH  # the storage: a torch tensor
        if receiver == BURN and name in _BURN_NUMBERS:
            return OTHER  # `loss.into_scalar()`: a Python number
        if receiver in (BURN, FOREIGN, TORCH):
            return receiver
        if is_module(receiver):
            return self._module_method(name, receiver)
        if is_tensor(receiver):
            if name == "requires_grad_":
                return PARAM
            return _TENSOR_NON_TENSOR_METHODS.get(name, TENSOR)
        if receiver == NUMPY:
            return OTHER if name in ("item", "tolist") else NUMPY
        if receiver == DISTRIBUTION:
            return TENSOR
        if receiver in (OPTIMIZER, SCHEDULER, SCALER):
            if receiver == SCALER and name == "scale":
                return TENSOR
            return OTHER
        if receiver == UNKNOWN and name in ("parameters", "named_parameters"):
            return _MODULE_ITER_METHODS[name]  # only modules have them
        if receiver == OTHER:
            return UNKNOWN
        if isinstance(receiver, Iter):
            return UNKNOWN
        return UNKNOWN
