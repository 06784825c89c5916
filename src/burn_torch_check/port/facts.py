"""What the translator knows about a file before it rewrites it: each expression's kind (the
checker's ``Analysis``, reached from libcst nodes through their
source spans), the file's module classes and their fields, and which functions train a model
they receive (so that they return it and their callers rebind it, Burn's modules being values).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..analysis import LOADER, OPTIMIZER, PARAM, TENSOR, Analysis, Instance, Iter, Kind, UNKNOWN, is_module

Span = tuple[int, int, int, int]  # start line, start column, end line, end column (ast's)

OPTIMIZERS = {"torch.optim.Adam", "torch.optim.AdamW", "torch.optim.SGD", "torch.optim.RMSprop",
              "torch.optim.Adagrad"}
SCHEDULERS = {"torch.optim.lr_scheduler.StepLR", "torch.optim.lr_scheduler.ExponentialLR",
              "torch.optim.lr_scheduler.CosineAnnealingLR"}


#: torch.nn.Module's public methods (tests/test_port_translate.py keeps the list equal to torch's):
#: ``self.<one of these>(...)`` in a module class is the inherited method, never a submodule call.
TORCH_MODULE_METHODS = frozenset({
    "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "compile", "cpu", "cuda",
    "double", "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer", "get_extra_state",
    "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia", "named_buffers",
    "named_children", "named_modules", "named_parameters", "parameters", "register_backward_hook",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook", "register_module", "register_parameter",
    "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_", "set_extra_state",
    "set_submodule", "share_memory", "state_dict", "T_destination", "to", "to_empty", "train", "type", "xpu",
    "zero_grad"})


def span(node: ast.AST) -> Span:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


@dataclass
class FunctionEffects:
    """How a top-level function must change for Burn's value semantics: ``returns`` is the
    parameter holding the model its optimizer steps (the function returns it, callers rebind
    it); ``lr_params`` maps an optimizer parameter to the learning-rate parameter it needs."""

    returns: str | None = None
    lr_params: dict[str, str] = field(default_factory=dict)


class Facts:
    """The analysed file: ``kind`` of an expression by its span, the module classes and the
    fields of each (``module``, ``param``, ``dict``, ``list``), the optimizer → model pairs and
    each function's ``FunctionEffects``."""

    def __init__(self, text: str) -> None:
        self.tree = ast.parse(text)
        self.analysis = Analysis(self.tree)
        self.imports = dict(self.analysis.imports)
        self._by_span: dict[Span, ast.expr] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.expr):
                self._by_span.setdefault(span(node), node)
        self.module_classes = set(self.analysis._module_classes)
        self.fields: dict[str, dict[str, str]] = {c: {} for c in self.module_classes}
        for name in self.module_classes:
            self._collect_fields(self.analysis.classes[name])
        self.log_softmax_outputs = self._forwards_end_in_log_softmax()
        self.optimizer_model: dict[str, str] = {}
        self.functions = {n: f for n, f in self.analysis.functions.items()}
        self._collect_optimizers()
        self.effects = {name: self._effects(fn) for name, fn in self.functions.items()}
        self._device_lines: dict[ast.AST, int | None] = {}
        self._functions_by_line = {(n.name, line): n for n in ast.walk(self.tree)
                                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                   for line in (n.lineno, *(d.lineno for d in n.decorator_list))}

    # --------------------------------------------------------------------- queries ----
    def function_at(self, name: str, line: int) -> ast.FunctionDef | None:
        """The function ``name`` defined at ``line`` (its ``def`` or a decorator's line)."""
        return self._functions_by_line.get((name, line))

    def device_binding(self, scope: ast.AST | None) -> int | None:
        """The first line where ``scope`` (a function, or the module's own statements) binds the
        name ``device`` (0 for a parameter), or None."""
        if scope is None:
            return None
        if scope not in self._device_lines:
            if isinstance(scope, ast.Module):
                nodes = [n for stmt in scope.body if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef))
                         for n in ast.walk(stmt)]
            else:
                nodes = list(ast.walk(scope))
            lines = [n.lineno for n in nodes if isinstance(n, ast.Name) and n.id == "device"
                     and isinstance(n.ctx, ast.Store)]
            if isinstance(scope, ast.FunctionDef) and "device" in {a.arg for a in [*scope.args.args,
                                                                                   *scope.args.kwonlyargs]}:
                lines.append(0)
            self._device_lines[scope] = min(lines, default=None)
        return self._device_lines[scope]

    def node(self, sp: Span) -> ast.expr | None:
        return self._by_span.get(sp)

    def kind(self, sp: Span) -> Kind:
        node = self._by_span.get(sp)
        return UNKNOWN if node is None else self.analysis.kind(node)

    def qualname_of(self, sp: Span) -> str | None:
        node = self._by_span.get(sp)
        return None if node is None else self.analysis.qualname(node)

    def is_module_kind(self, kind: Kind) -> bool:
        return is_module(kind) or (isinstance(kind, Instance) and kind.cls in self.module_classes)

    @staticmethod
    def is_tensor_kind(kind: Kind) -> bool:
        return kind in (TENSOR, PARAM)

    # ------------------------------------------------------------------ the passes ----
    def _collect_fields(self, cls: ast.ClassDef) -> None:
        fields = self.fields[cls.name]
        for node in ast.walk(cls):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            t = node.targets[0]
            if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                continue
            q = self.analysis.qualname(node.value.func) if isinstance(node.value, ast.Call) else None
            inner = {self.analysis.qualname(c.func) for c in ast.walk(node.value) if isinstance(c, ast.Call)}
            if q == "torch.nn.Parameter" or "torch.nn.Parameter" in inner:
                optional = isinstance(node.value, ast.IfExp) and any(
                    isinstance(v, ast.Constant) and v.value is None for v in (node.value.body, node.value.orelse))
                fields[t.attr] = "optional_param" if optional else "param"
            elif q == "torch.nn.ModuleDict":
                fields[t.attr] = "dict"
            elif q == "torch.nn.ModuleList":
                fields[t.attr] = "list"
            elif q is not None and q.startswith("torch.nn.") or self.is_module_kind(self.analysis.kind(node.value)) or (
                    isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id in self.module_classes):
                fields[t.attr] = "module"
        for node in ast.walk(cls):  # self.register_buffer("name", t)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "register_buffer" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                fields[node.args[0].value] = "param"

    def field(self, cls: str | None, name: str) -> str | None:
        return self.fields.get(cls or "", {}).get(name)

    def _forwards_end_in_log_softmax(self) -> bool:
        """Whether every module class's ``forward`` returns ``log_softmax`` of something (then
        ``F.nll_loss`` of a model's output is a cross-entropy on logits, as Burn computes it)."""
        seen = False
        for name in self.module_classes:
            for fn in self.analysis.classes[name].body:
                if not (isinstance(fn, ast.FunctionDef) and fn.name == "forward"):
                    continue
                assigned = {n.targets[0].id: n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                            and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
                for ret in (n for n in ast.walk(fn) if isinstance(n, ast.Return)):
                    value = ret.value.elts[0] if isinstance(ret.value, ast.Tuple) else ret.value
                    if isinstance(value, ast.Name):
                        value = assigned.get(value.id, value)
                    q = self.analysis.qualname(value.func) if isinstance(value, ast.Call) else None
                    if q not in ("torch.nn.functional.log_softmax", "torch.log_softmax"):
                        return False
                    seen = True
        return seen

    def _collect_optimizers(self) -> None:
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
                continue
            if self.analysis.qualname(node.value.func) not in OPTIMIZERS or not node.value.args:
                continue
            params = node.value.args[0]
            if isinstance(params, ast.Call) and isinstance(params.func, ast.Attribute) \
                    and params.func.attr == "parameters" and isinstance(params.func.value, ast.Name):
                self.optimizer_model[node.targets[0].id] = params.func.value.id

    def model_of(self, optimizer: str, fn: ast.AST | None) -> str | None:
        """The name of the model ``optimizer`` steps, as seen in function ``fn`` (or the module):
        the name it was built on, else the one module-kind name that function calls."""
        bound = self._bound_names(fn)
        model = self.optimizer_model.get(optimizer)
        if model is not None and (fn is None or model in bound):
            return model
        if fn is None:
            return None
        called = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                  and n.func.id in bound and self.is_module_kind(self.analysis.kind(n.func))}
        return called.pop() if len(called) == 1 else None

    def _bound_names(self, fn: ast.AST | None) -> set[str]:
        scope = self.tree if fn is None else fn
        names = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(fn, ast.FunctionDef):
            names |= {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        return names

    def _effects(self, fn: ast.FunctionDef) -> FunctionEffects:
        effects = FunctionEffects()
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
        stored = self._bound_names(fn) - set(params)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "step" and isinstance(node.func.value, ast.Name)):
                continue
            opt = node.func.value.id
            if self.analysis.kind(node.func.value) != OPTIMIZER:
                continue
            model = self.model_of(opt, fn)
            if model in params and model not in stored:
                effects.returns = model
            if opt in params and f"{opt}_lr" not in params:
                effects.lr_params[opt] = f"{opt}_lr"
        return effects

    def scheduler_optimizer(self, call: ast.Call) -> str | None:
        """The optimizer name a scheduler constructor receives (its first argument)."""
        arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "optimizer"), None)
        return arg.id if isinstance(arg, ast.Name) else None


def is_loader(kind: Kind) -> bool:
    return kind == LOADER or (isinstance(kind, Iter) and kind.item == TENSOR)
