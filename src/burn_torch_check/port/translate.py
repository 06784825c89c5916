"""The translator: a libcst transformer that rewrites a PyTorch program into burn_torch, row by row
of the mapping table (:mod:`.table`), keeping comments and layout elsewhere.

:func:`translate_source` returns a :class:`Translation`: the port's source and one
:class:`Event` per rewritten or left place. A line whose meaning burn_torch cannot keep stays as
it was under a ``# burn-torch-port: BTnnn <why>`` comment; nothing is rewritten without a row.
Torch-free: it reads the program, never runs it.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .args import Unsupported, arg_node, bind, int_literal, literal, pair, sequence
from .facts import OPTIMIZERS, SCHEDULERS, Facts, is_loader
from .imports import BURN_NAMES, DEVICE_LINE, needed_imports
from .layers import LAYERS, layer_fields
from .table import BY_ID, Row
from .template import render
from ..analysis import OPTIMIZER, SCHEDULER, UNKNOWN
from ..methods import stored as stored_methods

MARK = "# burn-torch-port:"
NO_ROW = "no-row"  # the reason of a torch call the table has no row for


@dataclass(frozen=True)
class Event:
    """One place the translator acted on: ``line`` of the original, ``kind`` ``translated`` or
    ``left``, the row (None for a torch call without a row) and, for a left place, the reason."""

    line: int
    kind: str
    row: str | None
    reason: str = ""
    code: str = ""


@dataclass
class Translation:
    """The port of one source: ``code``, the events, and the ``marked`` lines' comments."""

    source: str
    code: str
    events: list[Event] = field(default_factory=list)


class Left(Exception):
    """Raised by a rule: the place stays as it was, marked with ``row``'s code and ``why``."""

    def __init__(self, row: str | None, why: str = "") -> None:
        super().__init__(why)
        self.row, self.why = row, why


_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "sigmoid": "sigmoid", "tanh": "tanh", "silu": "silu",
                "softplus": "softplus", "elu": "elu", "mish": "mish", "selu": "selu", "relu6": "relu6"}
_SOFTMAX = {"softmax": "softmax", "log_softmax": "log_softmax"}
_UNARY = {"exp", "log", "sqrt", "abs", "cos", "sin", "floor", "ceil", "round", "log1p", "neg", "square",
          "recip", "erf", "sign", "tan", "cosh", "sinh"}
_SAME_METHODS = _UNARY | {"detach", "clone", "sum", "mean", "max", "min", "prod", "flip", "matmul", "tril",
                          "triu", "cumsum", "any", "all", "int", "float", "bool", "forward", "backward", "t"}
_CASTS = {"float": "float", "long": "int", "int": "int", "double": "float", "bool": "bool"}
_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "lower", "le": "lower_equal", "gt": "greater",
            "ge": "greater_equal"}
_COMPARE_OPS = {cst.Equal: "equal", cst.NotEqual: "not_equal", cst.LessThan: "lower",
                cst.LessThanEqual: "lower_equal", cst.GreaterThan: "greater", cst.GreaterThanEqual: "greater_equal"}
_CREATION = {"zeros", "ones", "randn", "rand", "full", "empty", "arange", "tensor", "eye"}
_TORCH_ONLY = stored_methods()["torch_only"] - stored_methods()["ambiguous"]
_NON_TENSOR_RESULTS = {"size", "item", "tolist", "dim", "numel", "dims", "into_scalar", "numpy", "shape"}
_KEEP_TORCH = ("torch.utils.", "torch.cuda.", "torch.no_grad", "torch.backends.", "torch.accelerator.",
               "torch.device", "torch.manual_seed", "torch.load", "torch.Generator", "torchvision.",
               "torch.set_", "torch.is_", "torch.inference_mode", "torch.enable_grad")
_OPTIMIZER_ROWS = {"torch.optim.Adam": "AdamConfig", "torch.optim.AdamW": "AdamWConfig",
                   "torch.optim.SGD": "SgdConfig", "torch.optim.RMSprop": "RmsPropConfig",
                   "torch.optim.Adagrad": "AdaGradConfig"}


@dataclass
class _Frame:
    kind: str  # module | class | function
    node: ast.AST | None = None
    cls: str | None = None  # the module class whose body (or method) this is
    device: str = "DEVICE"
    converted: set = field(default_factory=set)
    modules: set = field(default_factory=set)  # names bound to modules (loop variables over ModuleLists)
    tensors: set = field(default_factory=set)  # names last assigned a tensor the analysis did not see
    in_init: bool = False


class _Rewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, facts: Facts, table: Mapping[str, Row], module: cst.Module) -> None:
        super().__init__()
        self.facts, self.table, self.module = facts, table, module
        self.events: list[Event] = []
        self.rendered: list[str] = []
        self.frames = [_Frame("module", facts.tree, device=self._device_of(facts.tree))]
        self.torch_aliases = {alias for alias, q in facts.imports.items() if q == "torch.nn"}
        self.renamed = {alias: f"torch_{alias}" if alias != "nn" else "tnn"
                        for alias, q in facts.imports.items()
                        if alias in BURN_NAMES and (q.split(".")[0] == "torch")}
        self.scheduler_optimizer = self._scheduler_optimizers()
        self._in_import = 0
        self._callees: set[cst.CSTNode] = set()
        self._pending_conversion = None
        self._carry: list[cst.EmptyLine] = []  # comments of a removed statement, for the next one
        self._lead: dict[cst.CSTNode, list[cst.EmptyLine]] = {}

    # ============================================================ plumbing ====
    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        r = self.get_metadata(PositionProvider, node)
        return (r.start.line, r.start.column, r.end.line, r.end.column)

    def line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def ast_of(self, node: cst.CSTNode) -> ast.expr | None:
        sp = self.span(node)
        found = self.facts.node(sp)
        lpar = len(getattr(node, "lpar", ()))
        if found is None and lpar and sp[0] == sp[2]:
            found = self.facts.node((sp[0], sp[1] + lpar, sp[2], sp[3] - lpar))
        return found

    def kind(self, node: cst.CSTNode):
        found = self.ast_of(node)
        return UNKNOWN if found is None else self.facts.analysis.kind(found)

    def qual(self, node: cst.CSTNode) -> str | None:
        parts = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name) or node.value not in self.facts.imports:
            return None
        return ".".join([self.facts.imports[node.value], *reversed(parts)])

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def _device_of(self, scope: ast.AST) -> str:
        names = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(scope, ast.FunctionDef):
            names |= {a.arg for a in [*scope.args.args, *scope.args.kwonlyargs]}
        return "device" if "device" in names else "DEVICE"

    def device_at(self, node: cst.CSTNode) -> str:
        """``device`` where the program has bound a device by then (a parameter, an earlier
        assignment in the scope or the module), else the port's ``DEVICE``."""
        frame = self.frame
        if frame.in_init:
            return "device"
        line = self.line(node)
        for scope in (frame.node, self.facts.tree):
            if scope is None:
                continue
            if isinstance(scope, ast.FunctionDef) and "device" in {a.arg for a in [*scope.args.args,
                                                                                   *scope.args.kwonlyargs]}:
                return "device"
            if any(isinstance(n, ast.Name) and n.id == "device" and isinstance(n.ctx, ast.Store)
                   and n.lineno < line for n in ast.walk(scope)):
                return "device"
        return "DEVICE"

    def _scheduler_optimizers(self) -> dict[str, str]:
        found = {}
        for node in ast.walk(self.facts.tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call) and self.facts.analysis.qualname(node.value.func) in SCHEDULERS:
                opt = self.facts.scheduler_optimizer(node.value)
                if opt:
                    found[node.targets[0].id] = opt
        return found

    def emit(self, node: cst.CSTNode, row_id: str, fields: Mapping[str, str | None]) -> str:
        """Row ``row_id``'s template filled with ``fields``; records the event."""
        text = render(self.table[row_id].burn, {"device": self.device_at(node), **fields})
        self.rendered.append(text)
        self.events.append(Event(self.line(node), "translated", row_id))
        return text

    def leave_place(self, node: cst.CSTNode, exc: Left) -> None:
        row = self.table.get(exc.row) if exc.row else None
        why = exc.why or (row.left if row else "") or (f"{row.torch}: not translatable here" if row else "")
        code = row.code if row is not None else ""
        self.events.append(Event(self.line(node), "left", exc.row, why, code))

    # ============================================================ comments of removed lines ====
    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._carry and isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._lead[node], self._carry = self._carry, []
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        result = super().on_leave(original, updated)
        carried = self._lead.pop(original, None)
        if not carried:
            return result
        if isinstance(result, cst.FlattenSentinel):
            head, *rest = result.nodes
            return cst.FlattenSentinel([head.with_changes(leading_lines=[*carried, *head.leading_lines]), *rest])
        if isinstance(result, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return result.with_changes(leading_lines=[*carried, *result.leading_lines])
        self._carry = carried + self._carry  # removed too: the next statement takes them
        return result

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self._carry:
            updated = updated.with_changes(footer=[*self._carry, *updated.footer])
        return updated

    # ============================================================ scopes ====
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        name = node.name.value
        self.frames.append(_Frame("class", None, name if name in self.facts.module_classes else None,
                                  device=self.frame.device))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        frame = self.frames.pop()
        if frame.cls is None:
            return updated
        bases = []
        for before, base in zip(original.bases, updated.bases):
            q = self.qual(before.value)
            if q in ("torch.nn.Module", "torch.nn.modules.module.Module"):
                base = base.with_changes(value=cst.Name("Module"))
                self.rendered.append("Module")
                self.events.append(Event(self.line(original), "translated", "own_module"))
            elif q is not None and q.startswith("torch."):
                self.leave_place(original, Left("torch_subclass"))
            bases.append(base)
        updated = updated.with_changes(bases=bases)
        line = self.line(original)
        marks = self._marks(line, line)
        return updated.with_changes(leading_lines=[*updated.leading_lines, *marks]) if marks else updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        ast_fn = self._ast_function(node)
        outer = self.frame
        in_init = outer.kind == "class" and outer.cls is not None and node.name.value == "__init__"
        device = "device" if in_init else (self._device_of(ast_fn) if ast_fn is not None else outer.device)
        self.frames.append(_Frame("function", ast_fn, outer.cls if outer.kind == "class" else outer.cls,
                                  device=device, in_init=in_init))

    def _ast_function(self, node: cst.FunctionDef) -> ast.FunctionDef | None:
        line = self.line(node)
        for n in ast.walk(self.facts.tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == node.name.value \
                    and (n.lineno == line or any(d.lineno == line for d in n.decorator_list)):
                return n
        return None

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        frame = self.frames.pop()
        params = updated.params
        if frame.in_init and not any(p.name.value == "device" for p in (*params.params, *params.kwonly_params)):
            new = cst.Param(cst.Name("device"), default=cst.Name("DEVICE"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
            self.rendered.append("DEVICE")
            if params.star_arg is cst.MaybeSentinel.DEFAULT or params.star_arg is None:
                params = params.with_changes(params=[*params.params, new])
            else:
                params = params.with_changes(kwonly_params=[*params.kwonly_params, new])
            self.events.append(Event(self.line(original), "translated", "own_module"))
            return updated.with_changes(params=params)
        effects = self.facts.effects.get(original.name.value) if frame.cls is None else None
        if effects is None or (effects.returns is None and not effects.lr_params):
            return updated
        names = {p.name.value for p in (*params.params, *params.kwonly_params)}
        extra = [cst.Param(cst.Name(lr)) for lr in effects.lr_params.values() if lr not in names]
        if extra:  # keyword-only, so that callers' positional arguments keep their places
            star = params.star_arg if isinstance(params.star_arg, cst.Param) else cst.ParamStar()
            params = params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, *extra])
            self.events.append(Event(self.line(original), "translated", "step"))
        body = updated.body
        if effects.returns is not None:
            returns = [n for n in ast.walk(frame.node) if isinstance(n, ast.Return)]
            if returns:
                self.events.append(Event(self.line(original), "left", "step",
                                         f"this function returns a value and trains {effects.returns}: "
                                         f"return the updated {effects.returns} too", self.table["step"].code))
            else:
                stmt = cst.parse_statement(f"return {effects.returns}")
                body = body.with_changes(body=[*body.body, stmt])
        return updated.with_changes(params=params, body=body)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        self._in_import += 1

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias) -> cst.ImportAlias:
        self._in_import -= 1
        local = original.asname.name.value if original.asname else self.code(original.name).split(".")[0]
        if local in self.renamed and (original.asname or "." not in self.code(original.name)):
            return updated.with_changes(asname=cst.AsName(name=cst.Name(self.renamed[local])))
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if self._in_import or updated.value not in self.renamed:
            return updated
        return updated.with_changes(value=self.renamed[updated.value])

    # ============================================================ expressions ====
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = original.attr.value
        value = original.value
        if updated.attr.value != name:  # an attribute named like a renamed import (torch.nn)
            updated = updated.with_changes(attr=original.attr)
        # self.<param> read in an expression: its value
        if isinstance(value, cst.Name) and value.value == "self" and self.frame.cls \
                and self.facts.field(self.frame.cls, name) == "param" and not self._is_target(original) \
                and not self._identity_test(original):
            return self._expr(original, "param_value", {"param": self.code(updated)})
        # self.<ModuleDict>.key
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self" \
                and self.facts.field(self.frame.cls, value.attr.value) == "dict":
            return cst.parse_expression(f'{self.code(updated.value)}["{name}"]')
        if name in ("shape", "data", "device", "T", "is_cuda") and self._tensor(original.value) \
                and not self._called(original):
            try:
                if name == "shape":
                    return self._expr(original, "shape", {"x": self.code(updated.value)})
                if name == "data":
                    return self._expr(original, "data", {"x": self.code(updated.value)})
                if name == "device":
                    self.rendered.append("")
                    return cst.parse_expression(f"{self.code(updated.value)}.device()")
                raise Left(None, f"tensor attribute .{name} has no table row")
            except Left as exc:
                self.leave_place(original, exc)
        if name == "param_groups" and self.kind(value) == OPTIMIZER:
            self.leave_place(original, Left("optimizer_state"))
        if name == "training" and isinstance(value, cst.Name) and value.value == "self" and self.frame.cls:
            self.leave_place(original, Left("training_flag"))
        return updated

    def _called(self, attr: cst.Attribute) -> bool:
        return attr in self._callees

    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(node.func)

    def _identity_test(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is an operand of ``is``/``is not`` (``self.bias is not None``)."""
        found = self.ast_of(node)
        parent = self.facts.analysis.parent.get(found) if found is not None else None
        return isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)

    def _is_target(self, node: cst.CSTNode) -> bool:
        found = self.ast_of(node)
        return found is not None and isinstance(getattr(found, "ctx", None), ast.Store)

    def _method_returns_tensor(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` calls a method of one of the file's module classes (on a module value)
        that returns a tensor (``model.decode(z)``)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and self.facts.is_module_kind(self.kind(node.func.value))):
            return False
        returns = self.facts.analysis.returns
        kinds = {returns.get(f"{cls}.{node.func.attr.value}") for cls in self.facts.module_classes} - {None}
        return bool(kinds) and all(self.facts.is_tensor_kind(k) for k in kinds)

    def _tensor(self, node: cst.CSTNode) -> bool:
        k = self.kind(node)
        if self.facts.is_tensor_kind(k) or self._method_returns_tensor(node):
            return True
        return k == UNKNOWN and self.frame.cls is not None and not (
            isinstance(node, cst.Name) and node.value == "self")

    def recv(self, node: cst.BaseExpression) -> str:
        """``node``'s source as a method receiver: parenthesized unless it is an atom."""
        text = self.code(node)
        compound = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation, cst.IfExp,
                    cst.Lambda)
        return f"({text})" if isinstance(node, compound) and not node.lpar else text

    def _expr(self, node: cst.CSTNode, row_id: str, fields: Mapping[str, str | None]) -> cst.BaseExpression:
        return cst.parse_expression(self.emit(node, row_id, fields))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        try:
            result = self._call(original, updated)
        except Left as exc:
            self.leave_place(original, exc)
            return updated
        except Unsupported as exc:
            row_id = self._row_for_unsupported(original)
            self.leave_place(original, Left(row_id, f"{exc}: no burn_torch counterpart with the same meaning"))
            return updated
        return updated if result is None else result

    def _row_for_unsupported(self, original: cst.Call) -> str | None:
        q = self.qual(original.func)
        if q in LAYERS:
            return LAYERS[q][0]
        if isinstance(original.func, cst.Attribute):
            return _METHOD_ROWS.get(original.func.attr.value)
        return None

    def _call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        q = self.qual(original.func)
        if q is not None:
            return self._qualified(q, original, updated)
        func = original.func
        if isinstance(func, cst.Name) and func.value not in self.facts.module_classes \
                and (self.facts.is_module_kind(self.kind(func)) or func.value in self.frame.modules):
            return self._module_call(original, updated, "module")
        if isinstance(func, cst.Name):
            return self._name_call(original, updated)
        if not isinstance(func, cst.Attribute):
            return None
        receiver = func.value
        method = func.attr.value
        rk = self.kind(receiver)
        module_field = self._module_field(func)
        if self.facts.is_module_kind(self.kind(func)) or module_field:
            return self._module_call(original, updated, module_field)
        if self.facts.is_module_kind(rk) or rk in (OPTIMIZER, SCHEDULER):
            return self._object_method(original, updated, method, rk)
        if self._tensor(receiver) or self._root_name(receiver) in self.frame.converted or (
                self.kind(receiver) == UNKNOWN and method in _TORCH_ONLY):
            return self._tensor_method(original, updated, method)
        return None

    def _module_field(self, func: cst.BaseExpression) -> str | None:
        """The field kind when ``func`` is ``self.<module field>`` (or a ModuleDict entry): a
        field assigned a module, or any attribute of a module class that is not one of its
        methods (a submodule received as an argument: calling its forward fails loudly if not)."""
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            kind = self.facts.field(self.frame.cls, func.attr.value)
            if kind is None and self.frame.cls and not self.facts.analysis.defines(self.frame.cls, func.attr.value):
                return "module"
            return kind if kind == "module" else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) \
                and isinstance(func.value.value, cst.Name) and func.value.value.value == "self" \
                and self.facts.field(self.frame.cls, func.value.attr.value) == "dict":
            return "module"
        return None

    # -------------------------------------------------------------- module calls ----
    def _module_call(self, original: cst.Call, updated: cst.Call, field_kind) -> cst.BaseExpression:
        args = list(updated.args)
        layer = self._layer_type(original.func)
        if layer in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN"):
            self._check_recurrent_use(original)
            if len(args) > 1:
                if not self._zero_state(original.args[1].value):
                    raise Left("lstm_state")
                args = args[:1]
        text = ", ".join(self.code(a.value) if a.keyword is None and not a.star
                         else self.code(a).rstrip(", ") for a in args)
        return self._expr(original, "module_call", {"module": self.code(updated.func), "args": text})

    def _layer_type(self, func: cst.BaseExpression) -> str | None:
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        cls = self.facts.analysis.classes.get(self.frame.cls or "")
        if cls is None:
            return None
        found = None
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                    and node.targets[0].attr == func.attr.value and isinstance(node.value, ast.Call):
                q = self.facts.analysis.qualname(node.value.func)
                if q in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN") or found is None:
                    found = q if q in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN") else found or q
        return found

    def _check_recurrent_use(self, original: cst.Call) -> None:
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node) if node is not None else None
        if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
                and len(parent.targets[0].elts) == 2 and isinstance(parent.targets[0].elts[1], ast.Tuple):
            raise Left("lstm_state")
        if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
                and len(parent.targets[0].elts) == 2 and isinstance(parent.targets[0].elts[1], ast.Name) \
                and parent.targets[0].elts[1].id != "_":
            raise Left("lstm_state", "the final state is Burn's (per layer), not torch's stacked "
                                     "(h, c): check how it is used")

    def _zero_state(self, state: cst.BaseExpression) -> bool:
        """Whether ``state`` is a tuple of names (or one name) assigned ``torch.zeros(...)`` in
        the enclosing function: then dropping it keeps the meaning (Burn's default is zeros)."""
        names = [e.value for e in state.elements] if isinstance(state, cst.Tuple) else [state]
        if not all(isinstance(n, cst.Name) for n in names) or self.frame.node is None:
            return False
        zeros = set()
        for node in ast.walk(self.frame.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                        and value.func.attr in ("to", "cuda"):
                    value = value.func.value
                if isinstance(value, ast.Call) and self.facts.analysis.qualname(value.func) == "torch.zeros":
                    zeros.add(node.targets[0].id)
        return all(n.value in zeros for n in names)

    def _name_call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        name = original.func.value
        if name in self.facts.module_classes:
            if any(a.keyword is not None and a.keyword.value == "device" for a in original.args) \
                    or self.device_at(original) == "DEVICE":
                return None  # the port's classes default to DEVICE
            args = [self.code(a).rstrip().rstrip(",") for a in updated.args]
            return self._expr(original, "own_module", {"call": f"{name}({', '.join([*args, 'device=' + self.frame.device])})"})
        effects = self.facts.effects.get(name)
        if effects is not None and effects.lr_params:
            fn = self.facts.functions[name]
            params = [a.arg for a in fn.args.args]
            extra = []
            for opt, lr in effects.lr_params.items():
                value = arg_node(original, params, opt)
                if not isinstance(value, cst.Name):
                    raise Left("step", f"pass the learning rate of {opt} as {lr}=")
                extra.append(f"{lr}={value.value}_lr")
            args = [self.code(a).rstrip().rstrip(",") for a in updated.args]
            self.events.append(Event(self.line(original), "translated", "step"))
            return cst.parse_expression(f"{name}({', '.join([*args, *extra])})")
        return None

    def _object_method(self, original, updated, method, rk) -> cst.BaseExpression | None:
        receiver = self.code(updated.func.value)
        if self.facts.is_module_kind(rk):
            if method in ("to", "cuda", "cpu"):
                inner = original.func.value
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) \
                        and inner.func.value in self.facts.module_classes:
                    device = self.code(updated.args[0].value) if updated.args else "Device.cuda().autodiff()"
                    args = [self.code(a).rstrip().rstrip(",") for a in inner.args]
                    return self._expr(original, "module_to_device",
                                      {"constructor": f"{inner.func.value}({', '.join([*args, 'device=' + device])})"})
                raise Left("module_to_device", "a module's parameters move with to_device as "
                           "intermediates: build the module on the device (Net(..., device=device))")
            if method in ("parameters", "named_parameters", "state_dict") and self._argument_of_handled_call(original):
                return None
            if method in ("parameters", "named_parameters"):
                raise Left(None, "modules have no parameters(): params() / named_params() list Params")
            if method == "load_state_dict" and self._statement_call(original):
                return None  # the statement rule translates it
            if method in ("state_dict", "load_state_dict"):
                raise Left("load", "modules have no state_dict(): save with model.save_file(path), "
                                   "convert with to_torch_state_dict / load_torch_state_dict")
            if method in ("apply",):
                raise Left("init_functions")
            return None
        if method in ("state_dict", "load_state_dict", "param_groups", "add_param_group", "get_last_lr"):
            raise Left("optimizer_state")
        return None

    def _statement_call(self, original: cst.Call) -> bool:
        """Whether ``original`` is a whole expression statement."""
        node = self.ast_of(original)
        return isinstance(self.facts.analysis.parent.get(node), ast.Expr)

    def _unpacked_pair(self, original: cst.Call) -> bool:
        """Whether ``original`` is the value of ``a, b = ...`` (the statement rule's case)."""
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node)
        return isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
            and len(parent.targets[0].elts) == 2

    def _argument_of_handled_call(self, original: cst.Call) -> bool:
        """Whether ``original`` is an argument of a call a statement rule translates as a whole
        (an optimizer constructor, ``torch.save``, gradient clipping)."""
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node) if node is not None else None
        q = self.facts.analysis.qualname(parent.func) if isinstance(parent, ast.Call) else None
        return q is not None and (q.startswith("torch.optim.") or q == "torch.save"
                                  or q.startswith("torch.nn.utils.clip_grad"))

    # -------------------------------------------------------------- tensor methods ----
    def _tensor_method(self, original: cst.Call, updated: cst.Call, method: str) -> cst.BaseExpression | None:
        x = self.code(updated.func.value)
        a = updated.args
        code = self.code
        if method in ("view", "reshape"):
            return self._expr(original, "reshape", {"x": x, "shape": sequence(a, code)})
        if method == "view_as":
            return self._expr(original, "reshape", {"x": x, "shape": f"{code(a[0].value)}.dims()"})
        if method == "size":
            return self._expr(original, "size", {"x": x, "dim": code(a[0].value) if a else None})
        if method == "dim":
            return self._expr(original, "rank", {"x": x})
        if method == "numel":
            return self._expr(original, "numel", {"x": x})
        if method in ("expand", "repeat"):
            return self._expr(original, "expand", {"x": x, "method": method, "sizes": sequence(a, code)})
        if method == "transpose":
            f = bind(updated, ("dim0", "dim1"), code)
            return self._expr(original, "transpose", {"x": x, **f})
        if method == "permute":
            return self._expr(original, "permute", {"x": x, "dims": sequence(a, code)})
        if method == "contiguous":
            return self._expr(original, "contiguous", {"x": x})
        if method == "unsqueeze":
            return self._expr(original, "unsqueeze", {"x": x, "dim": bind(updated, ("dim",), code)["dim"]})
        if method == "squeeze":
            f = bind(updated, ("dim",), code)
            return self._expr(original, "squeeze", {"x": x, "method": "squeeze_dim" if f else "squeeze", **f})
        if method in ("sum", "mean") and a:
            return self._reduction(original, updated, method, x)
        if method in ("argmax", "argmin"):
            f = bind(updated, ("dim", "keepdim"), code)
            if "dim" not in f:
                raise Left("argmax", "argmax without a dim flattens in torch: flatten first")
            keep = literal(arg_node(updated, ("dim", "keepdim"), "keepdim"))
            if keep is ...:
                keep = False
            return self._expr(original, "argmax", {"x": x, "method": method, "dim": f["dim"],
                                                   "squeeze": None if keep else f["dim"]})
        if method in ("max", "min") and a:
            if self._unpacked_pair(original):
                return None  # the statement rule translates it
            raise Left("max_dim", "max(dim) returns (values, indices) with the dim removed: unpack it "
                                  "as values, indices = ... to translate")
        if method in ("split", "chunk"):
            f = bind(updated, ("size" if method == "split" else "chunks", "dim"), code)
            size = f.get("size", f.get("chunks"))
            size_node = arg_node(updated, ("size" if method == "split" else "chunks", "dim"),
                                 "size" if method == "split" else "chunks")
            if method == "split" and isinstance(size_node, (cst.List, cst.Tuple)):
                raise Left("split", "split with a list of sizes: use split_with_sizes")
            return self._expr(original, "split", {"x": x, "method": method, "size": size, "dim": f.get("dim", "0")})
        if method == "flatten":
            f = bind(updated, ("start_dim", "end_dim"), code)
            return self._expr(original, "flatten", {"x": x, "start_dim": f.get("start_dim", "0"),
                                                    "end_dim": f.get("end_dim", "-1")})
        if method in ("bmm", "mm"):
            return self._expr(original, "matmul", {"input": x, "other": code(a[0].value)})
        if method == "pow":
            return self._pow(original, x, updated.args[0].value)
        if method in ("relu", "sigmoid", "tanh") and not a:
            if method == "tanh":
                return None
            return self._expr(original, "activation", {"function": method, "input": x})
        if method in ("softmax", "log_softmax"):
            f = bind(updated, ("dim",), code)
            if "dim" not in f:
                raise Left("softmax", "softmax without dim: name the dim")
            return self._expr(original, "softmax", {"function": method, "input": x, "dim": f["dim"]})
        if method == "item":
            return self._expr(original, "item", {"x": x})
        if method in ("long", "double") or (method in _CASTS and method != _CASTS[method]):
            return self._expr(original, "cast", {"x": x, "method": _CASTS[method]})
        if method in _COMPARE:
            return self._compare(original, x, updated.args[0].value, _COMPARE[method])
        if method == "masked_fill":
            f = bind(updated, ("mask", "value"), code)
            return self._expr(original, "masked_fill", {"x": x, **f})
        if method in ("clamp", "clip"):
            f = bind(updated, ("min", "max"), code)
            if "min" in f and "max" in f:
                return self._expr(original, "clamp", {"x": x, "method": "clamp", "bounds": f"{f['min']}, {f['max']}"})
            side = "min" if "min" in f else "max"
            return self._expr(original, "clamp", {"x": x, "method": f"clamp_{side}", "bounds": f[side]})
        if method in ("to", "cuda", "cpu"):
            return self._to_device(original, updated, x)
        if method in ("zero_grad",):
            return None
        if method.endswith("_") and not method.endswith("__"):
            raise Left(None, f"in-place {method}: tensors are values, rebind the result of the "
                             f"out-of-place method")
        if method in ("sum", "mean") and self._is_comparison(original.func.value):
            return self._expr(original, "cast", {"x": x, "method": f"int().{method}"})
        if method in _SAME_METHODS:
            return None
        if method in ("new_zeros", "new_ones"):
            return self._expr(original, "creation", {"function": method[4:],
                                                     "args": f"{sequence(a, code)}, {x}.device()"})
        if method in ("numpy", "tolist", "cpu", "type_as", "expand_as",
                      "index_select", "gather", "scatter", "masked_select", "nonzero", "topk", "sort"):
            if method == "topk":
                raise Left("topk")
            raise Left(None, f"tensor method {method}() has no table row")
        return None

    def _is_comparison(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Comparison):
            return True
        return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in _COMPARE

    @staticmethod
    def _root_name(node: cst.BaseExpression) -> str | None:
        """``x`` for ``x``, ``x.reshape(...)``, ``x[0].float()``: the name a method chain starts at."""
        while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
            node = node.func if isinstance(node, cst.Call) else node.value
        return node.value if isinstance(node, cst.Name) else None

    def _reduction(self, original, updated, method, x):
        f = bind(updated, ("dim", "keepdim"), self.code, ("dtype",))
        dim_node = arg_node(updated, ("dim", "keepdim"), "dim")
        if isinstance(dim_node, (cst.Tuple, cst.List)):
            raise Left(f"{method}_dim", "a reduction over several dims: use sum_dims/mean_dims")
        keep = literal(arg_node(updated, ("dim", "keepdim"), "keepdim"))
        if keep not in (..., True, False):
            raise Left(f"{method}_dim", "keepdim is not a literal")
        return self._expr(original, f"{method}_dim", {"x": x, "dim": f["dim"],
                                                      "squeeze": None if keep is True else f["dim"]})

    def _pow(self, original, x, exponent) -> cst.BaseExpression:
        value = literal(exponent)
        if isinstance(value, bool) or value is ...:
            raise Left("pow", "a power whose exponent is not a number literal: powf(tensor) or "
                              "powf_scalar(float)")
        method = "powi_scalar" if isinstance(value, int) else "powf_scalar"
        return self._expr(original, "pow", {"x": x, "method": method, "exponent": self.code(exponent)})

    def _compare(self, original, left: str, right_node: cst.BaseExpression, method: str):
        if literal(right_node) is not ...:
            method += "_elem"
        return self._expr(original, "compare", {"left": left, "method": method, "right": self.code(right_node)})

    def _to_device(self, original, updated, x) -> cst.BaseExpression:
        if self._root_name(original.func.value) in self.frame.converted:
            self.events.append(Event(self.line(original), "translated", "batch_from_torch"))
            return updated.func.value  # computed from a batch already on the device
        if not updated.args:
            device = self.device_at(original)
        else:
            f = bind(updated, ("device",), self.code, ("non_blocking", "dtype"))
            if "device" not in f:
                raise Left("to_device", "to(dtype): cast with float()/int()")
            device = f["device"]
        return self._expr(original, "to_device", {"x": x, "device": device})

    # -------------------------------------------------------------- torch functions ----
    def _qualified(self, q: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        code = self.code
        if q in ("torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss"):
            raise Left("bce_loss")
        if q in LAYERS:
            row_id, fields = layer_fields(q, updated, code)
            if row_id == "nll_loss" and not self.facts.log_softmax_outputs:
                raise Left("nll_loss", self.table["nll_loss"].torch and
                           "nll_loss on values that are not log_softmax outputs: no Burn loss computes it")
            return self._expr(original, row_id, fields)
        if q == "torch.nn.Parameter":
            f = bind(updated, ("data", "requires_grad"), code)
            return self._expr(original, "parameter", f)
        if q == "torch.nn.Sequential":
            if len(updated.args) == 1 and updated.args[0].star == "*":
                return self._expr(original, "sequential", {"layers": "*" + code(updated.args[0].value)})
            if any(a.keyword is not None or a.star for a in updated.args):
                raise Left("sequential", "Sequential of an OrderedDict or *list: write the list")
            return self._expr(original, "sequential", {"layers": ", ".join(code(a.value) for a in updated.args)})
        if q == "torch.nn.ModuleList":
            return self._expr(original, "module_list", {"modules": code(updated.args[0].value) if updated.args else ""})
        if q == "torch.nn.ModuleDict":
            return self._expr(original, "module_dict", {"modules": code(updated.args[0].value) if updated.args else ""})
        if q.startswith("torch.nn.init."):
            raise Left("init_functions")
        if q.startswith("torch.nn.utils.clip_grad"):
            raise Left("clip_grad")
        fn = q.rsplit(".", 1)[1]
        functional = q.startswith("torch.nn.functional.")
        if (functional or q.startswith("torch.")) and fn in _ACTIVATIONS and q.count(".") <= 3:
            return self._expr(original, "activation", {"function": _ACTIVATIONS[fn], "input": code(updated.args[0].value)})
        if fn in _SOFTMAX and (functional or q == f"torch.{fn}"):
            f = bind(updated, ("input", "dim", "_stacklevel", "dtype"), code)
            if "dim" not in f:
                raise Left("softmax", "softmax without dim: name the dim")
            return self._expr(original, "softmax", {"function": fn, "input": f["input"], "dim": f["dim"]})
        if q == "torch.nn.functional.leaky_relu":
            f = bind(updated, ("input", "negative_slope", "inplace"), code, ("inplace",))
            return self._expr(original, "leaky_relu", {"input": f["input"],
                                                       "negative_slope": f.get("negative_slope", "0.01")})
        if q in ("torch.nn.functional.max_pool2d", "torch.nn.functional.avg_pool2d"):
            names = ("input", "kernel_size", "stride", "padding")
            f = bind(updated, names, code, ("ceil_mode",) if False else ())
            kernel = pair(arg_node(updated, names, "kernel_size"), code)
            stride_node = arg_node(updated, names, "stride")
            stride = kernel if stride_node is None or literal(stride_node) is None else pair(stride_node, code)
            padding = pair(arg_node(updated, names, "padding"), code) or "[0, 0]"
            row_id = "max_pool2d_function" if "max" in q else "avg_pool2d_function"
            return self._expr(original, row_id, {"input": f["input"], "kernel_size": kernel, "stride": stride,
                                                 "padding": padding})
        if q == "torch.nn.functional.layer_norm":
            f = bind(updated, ("input", "normalized_shape", "weight", "bias", "eps"), code)
            if "weight" not in f:
                raise Left(None, "layer_norm without weight: pass ones")
            return self._expr(original, "layer_norm_function", {"input": f["input"], "weight": f["weight"],
                                                                "bias": f.get("bias", "None"),
                                                                "eps": f.get("eps", "1e-05")})
        if q == "torch.nn.functional.dropout":
            raise Left("dropout_function")
        if q == "torch.nn.functional.scaled_dot_product_attention":
            raise Left("attention_function")
        if q in ("torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"):
            names = ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction",
                     "label_smoothing")
            f = bind(updated, names, code)
            if any(k in f for k in ("weight", "size_average", "ignore_index", "reduce")) or \
                    literal(arg_node(updated, names, "reduction")) not in (..., "mean"):
                raise Left("loss_reduction")
            row_id = "cross_entropy" if fn == "cross_entropy" else "nll_loss"
            first = original.args[0].value if original.args else None
            on_log_softmax = isinstance(first, cst.Call) and self.qual(first.func) in (
                "torch.nn.functional.log_softmax", "torch.log_softmax")
            if row_id == "nll_loss" and not (self.facts.log_softmax_outputs or on_log_softmax):
                raise Left("nll_loss", "nll_loss on values that are not log_softmax outputs: no Burn loss computes it")
            return self._expr(original, row_id, {"label_smoothing": f.get("label_smoothing"),
                                                 "args": f"{f['input']}, {f['target']}"})
        if q == "torch.nn.functional.mse_loss":
            names = ("input", "target", "size_average", "reduce", "reduction")
            f = bind(updated, names, code)
            if "size_average" in f or "reduce" in f:
                raise Left("loss_reduction")
            reduction = literal(arg_node(updated, names, "reduction"))
            if reduction not in (..., "mean", "sum"):
                raise Left("loss_reduction")
            extra = "" if reduction in (..., "mean") else ", nn.Reduction.SUM"
            return self._expr(original, "mse_loss", {"args": f"{f['input']}, {f['target']}{extra}"})
        if q in ("torch.nn.functional.binary_cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits"):
            raise Left("bce_loss")
        if q in ("torch.cat", "torch.stack", "torch.concat"):
            f = bind(updated, ("tensors", "dim"), code)
            return self._expr(original, "cat", {"function": "stack" if fn == "stack" else "cat",
                                                "tensors": f["tensors"], "dim": f.get("dim", "0")})
        if q == "torch.flatten":
            f = bind(updated, ("input", "start_dim", "end_dim"), code)
            return self._expr(original, "flatten", {"x": self.recv(updated.args[0].value),
                                                    "start_dim": f.get("start_dim", "0"),
                                                    "end_dim": f.get("end_dim", "-1")})
        if q in ("torch.matmul", "torch.bmm", "torch.mm"):
            f = bind(updated, ("input", "other"), code)
            if "other" not in f:
                f = bind(updated, ("input", "mat2"), code)
                f["other"] = f.pop("mat2")
            f["input"] = self.recv(updated.args[0].value)
            return self._expr(original, "matmul", f)
        if q == "torch.pow":
            return self._pow(original, self.recv(updated.args[0].value), updated.args[1].value)
        if fn in _UNARY and q == f"torch.{fn}":
            return self._expr(original, "unary_function", {"input": self.recv(updated.args[0].value), "method": fn})
        if q in ("torch.tril", "torch.triu"):
            f = bind(updated, ("input", "diagonal"), code)
            return self._expr(original, "tril", {"x": self.recv(updated.args[0].value), "method": fn,
                                                 "diagonal": f.get("diagonal", "0")})
        if q in ("torch.sum", "torch.mean") and len(updated.args) > 1:
            x = self.recv(updated.args[0].value)
            inner = updated.with_changes(args=updated.args[1:])
            return self._reduction(original, inner, fn, x)
        if q in ("torch.sum", "torch.mean", "torch.max", "torch.min") and len(updated.args) == 1:
            return self._expr(original, "unary_function", {"input": self.recv(updated.args[0].value), "method": fn})
        if q in ("torch.max", "torch.min"):
            if self._unpacked_pair(original):
                return None  # the statement rule translates it
            raise Left("max_dim", "max(x, dim) returns (values, indices) with the dim removed: unpack it "
                                  "as values, indices = ... to translate")
        if q in ("torch.argmax", "torch.argmin"):
            x = self.recv(updated.args[0].value)
            inner = updated.with_changes(args=updated.args[1:])
            return self._tensor_method(original, inner.with_changes(
                func=cst.Attribute(cst.parse_expression(x), cst.Name(fn))), fn)
        if q == "torch.where" and len(updated.args) == 3:
            f = bind(updated, ("condition", "input", "other"), code)
            f["other"] = self.recv(arg_node(updated, ("condition", "input", "other"), "other"))
            return self._expr(original, "where", f)
        if fn in _CREATION and q == f"torch.{fn}":
            return self._creation(original, updated, fn)
        if q in ("torch.zeros_like", "torch.ones_like", "torch.randn_like", "torch.rand_like"):
            f = bind(updated, ("input",), code, ("device",))
            f["input"] = self.recv(updated.args[0].value)
            if fn in ("randn_like", "rand_like"):
                dist = "Distribution.normal(0.0, 1.0)" if fn == "randn_like" else "Distribution.default()"
                return self._expr(original, "like", {"x": f["input"], "method": "random_like", "extra": dist})
            return self._expr(original, "like", {"x": f["input"], "method": fn, "extra": None})
        if q == "torch.device":
            return self._expr(original, "device", {"spec": ", ".join(code(a.value) for a in updated.args)})
        if q.startswith("torchvision.") and any(self._strict_tensor(a.value) for a in original.args):
            args = [a.with_changes(value=cst.parse_expression(f"{self.recv(u.value)}.to_torch()"))
                    if self._strict_tensor(a.value) else u for a, u in zip(original.args, updated.args)]
            self.events.append(Event(self.line(original), "translated", "to_torch"))
            return updated.with_changes(args=args)
        if q.startswith(_KEEP_TORCH) or q.startswith("torch.optim") or q in ("torch.save",):
            return None
        if q.split(".")[0] == "torch":
            raise Left(None, f"{q} has no row in the mapping table")
        return None

    def _creation(self, original: cst.Call, updated: cst.Call, fn: str) -> cst.BaseExpression:
        device = self.device_at(original)
        kind = ""
        shape_args = []
        extra = []
        for a in updated.args:
            if a.keyword is None:
                shape_args.append(a)
            elif a.keyword.value == "device":
                device = self.code(a.value)
                if device.endswith(".device"):
                    device += "()"
            elif a.keyword.value == "dtype":
                dtype = self.code(a.value).rsplit(".", 1)[-1]
                if dtype in ("long", "int64", "int", "int32"):
                    kind = "Int"
                elif dtype == "bool":
                    kind = "Bool"
                elif dtype not in ("float", "float32"):
                    raise Left("creation", f"dtype {dtype}: set it with dtype=DType...")
            elif a.keyword.value == "requires_grad":
                raise Left("creation", "requires_grad=: call require_grad() on the tensor")
            else:
                raise Left("creation", f"argument {a.keyword.value}=")
        if fn == "arange":
            values = [self.code(a.value) for a in shape_args]
            if len(values) == 1:
                values = ["0", values[0]]
            if len(values) == 3:
                return self._expr(original, "creation", {"function": "arange_step",
                                                         "args": f"{values[0]}, {values[1]}, {values[2]}, {device}"})
            return self._expr(original, "creation", {"function": "arange", "args": f"{values[0]}, {values[1]}, {device}"})
        if fn == "tensor":
            args = f"{self.code(shape_args[0].value)}, {device}" + (f", {kind}" if kind else "")
            return self._expr(original, "creation", {"function": "from_data", "args": args})
        if fn == "eye":
            return self._expr(original, "creation", {"function": "eye", "args": f"{self.code(shape_args[0].value)}, {device}"})
        if fn == "full":
            shape = sequence(shape_args[:1], self.code)
            args = f"{shape}, {self.code(shape_args[1].value)}, {device}"
            return self._expr(original, "creation", {"function": "full", "args": args + (f", {kind}" if kind else "")})
        shape = sequence(shape_args, self.code)
        if fn in ("randn", "rand"):
            dist = "Distribution.normal(0.0, 1.0)" if fn == "randn" else "Distribution.default()"
            return self._expr(original, "creation", {"function": "random", "args": f"{shape}, {dist}, {device}"})
        args = f"{shape}, {device}" + (f", {kind}" if kind else "")
        return self._expr(original, "creation", {"function": fn, "args": args})

    # -------------------------------------------------------------- operators ----
    def leave_BinaryOperation(self, original, updated):
        if isinstance(original.operator, cst.Power) and self._tensor(original.left) and \
                not isinstance(original.left, (cst.Integer, cst.Float)):
            try:
                return self._pow(original, self.code(updated.left), updated.right)
            except Left as exc:
                self.leave_place(original, exc)
        return updated

    def leave_Comparison(self, original, updated):
        if len(original.comparisons) != 1:
            return updated
        op = original.comparisons[0].operator
        method = _COMPARE_OPS.get(type(op))
        right = original.comparisons[0].comparator
        if method is None or not (self._strict_tensor(original.left) or self._strict_tensor(right)):
            return updated
        if not self._strict_tensor(original.left):
            return updated
        result = self._compare(original, self.recv(updated.left), updated.comparisons[0].comparator, method)
        return result.with_changes(lpar=updated.lpar, rpar=updated.rpar) if hasattr(result, "lpar") else result

    def _strict_tensor(self, node) -> bool:
        if isinstance(node, cst.Name) and (node.value in self.frame.converted or node.value in self.frame.tensors):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value not in _NON_TENSOR_RESULTS and self._strict_tensor(node.func.value):
            return True  # a method chain on a tensor: x.reshape(...).float()
        return self.facts.is_tensor_kind(self.kind(node)) or self._method_returns_tensor(node)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not self._strict_tensor(original.value) or self._is_target(original):
            return updated
        try:
            ranges, squeeze = [], []
            for i, element in enumerate(updated.slice):
                index = element.slice
                if isinstance(index, cst.Slice):
                    if index.step is not None:
                        raise Left("slice", "a slice with a step: use Burn's slice with a step")
                    lo = self.code(index.lower) if index.lower else "None"
                    hi = self.code(index.upper) if index.upper else "None"
                    ranges.append("slice(None)" if lo == hi == "None" else f"slice({lo}, {hi})")
                elif isinstance(index, cst.Index) and int_literal(index.value):
                    ranges.append(self.code(index.value))
                    squeeze.append(str(i))
                else:
                    raise Left("slice", "indexing with a tensor, None or ...: use select/gather/unsqueeze_dim")
            return self._expr(original, "slice", {"x": self.code(updated.value), "ranges": ", ".join(ranges),
                                                  "squeeze": ", ".join(squeeze) or None})
        except Left as exc:
            self.leave_place(original, exc)
            return updated

    # ============================================================ statements ====
    def visit_For(self, node: cst.For) -> None:
        if self.frame.cls is not None and isinstance(node.target, cst.Name) and self._module_container(node.iter):
            self.frame.modules.add(node.target.value)
        iterable = node.iter
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
                and iterable.func.value == "enumerate" and iterable.args:
            iterable = iterable.args[0].value
            target = node.target.elements[1].value if isinstance(node.target, cst.Tuple) \
                and len(node.target.elements) == 2 else None
        else:
            target = node.target
        if target is None or not is_loader(self.kind(iterable)):
            return
        names = _names(target)
        if names:
            self.frame.converted.update(names)
            self._pending_conversion = (node, names)

    _pending_conversion = None

    def _module_container(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is a ModuleList/ModuleDict field (or an entry of a ModuleDict field)."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            return self.facts.field(self.frame.cls, node.attr.value) in ("list", "dict")
        return isinstance(node, cst.Attribute) and self._module_container(node.value)

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        updated = self._compound_marks(original, updated)
        pending = self._pending_conversion
        if pending is None or pending[0] is not original:
            return updated
        self._pending_conversion = None
        self._carry: list[cst.EmptyLine] = []  # comments of a removed statement, for the next one
        self._lead: dict[cst.CSTNode, list[cst.EmptyLine]] = {}
        names = pending[1]
        device = self.frame.device
        conversions = ", ".join(f"from_torch({n}, {device})" for n in names)
        text = self.emit(original, "batch_from_torch", {"names": ", ".join(names), "conversions": conversions})
        stmt = cst.parse_statement(text)
        return updated.with_changes(body=updated.body.with_changes(body=[stmt, *updated.body.body]))

    def leave_IndentedBlock(self, original, updated):
        if not updated.body:
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        replaced = False
        lines: list[str] = []
        keep: list[cst.BaseSmallStatement] = []
        for orig, upd in zip(original.body, updated.body):
            try:
                out = self._statement(orig, upd)
            except Left as exc:
                self.leave_place(orig, exc)
                out = None
            except Unsupported as exc:
                self.leave_place(orig, Left(None, str(exc)))
                out = None
            if out is None:
                keep.append(upd)
                lines.append(self.code(upd).rstrip("; \n"))
            else:
                replaced = True
                lines.extend(out)
        first, last = self.line(original), self.get_metadata(PositionProvider, original).end.line
        statements = [cst.parse_statement(t + "\n") for t in lines] if replaced else [updated]
        imports = all(isinstance(b, (cst.Import, cst.ImportFrom)) for b in original.body)
        if not imports and not any(e.kind == "left" and first <= e.line <= last for e in self.events):
            leftover = next(filter(None, map(self._torch_left_in, statements)), None)
            if leftover:
                self.events.append(Event(first, "left", None, f"{leftover} stays torch: it has no row in "
                                                              "the mapping table"))
        marks = self._marks(first, last)
        if not replaced:
            if marks:
                return updated.with_changes(leading_lines=[*updated.leading_lines, *marks])
            return updated
        if not lines:
            if marks:
                return updated.with_changes(leading_lines=[*updated.leading_lines, *marks])
            self._carry.extend(l for l in updated.leading_lines if l.comment is not None)
            return cst.RemovalSentinel.REMOVE
        head = statements[0].with_changes(leading_lines=[*updated.leading_lines, *marks])
        if updated.trailing_whitespace.comment is not None and isinstance(head, cst.SimpleStatementLine):
            head = head.with_changes(trailing_whitespace=updated.trailing_whitespace)
        return cst.FlattenSentinel([head, *statements[1:]])

    def _torch_left_in(self, updated: cst.CSTNode) -> str | None:
        """The first torch name (``torch.nn.init.normal_``) the translated statement still uses
        that is not torch-side code a port keeps (data loading, ``no_grad``, seeding...)."""
        roots = {self.renamed.get(alias, alias): q for alias, q in self.facts.imports.items()
                 if q.split(".")[0] == "torch"}
        found: list[str] = []

        class Finder(cst.CSTVisitor):
            def visit_Attribute(self, node: cst.Attribute) -> bool:
                parts, base = [], node
                while isinstance(base, cst.Attribute):
                    parts.append(base.attr.value)
                    base = base.value
                if isinstance(base, cst.Name) and base.value in roots:
                    q = ".".join([roots[base.value], *reversed(parts)])
                    if not (q.startswith(_KEEP_TORCH) or q.startswith("torch.optim")):
                        found.append(q)
                return False  # the outermost chain only

            def visit_Name(self, node: cst.Name) -> None:
                if roots.get(node.value) in ("torch.nn", "torch.nn.functional"):
                    found.append(roots[node.value])  # the module itself, passed around (getattr(nn, name))

        updated.visit(Finder())
        return found[0] if found else None

    def _marks(self, first: int, last: int) -> list[cst.EmptyLine]:
        marks = []
        seen = set()
        for e in self.events:
            if e.kind == "left" and first <= e.line <= last and (e.code, e.reason) not in seen:
                seen.add((e.code, e.reason))
                text = f"{MARK} {e.code} {e.reason}" if e.code else f"{MARK} {e.reason}"
                marks.append(cst.EmptyLine(comment=cst.Comment(text.rstrip())))
        return marks

    def _compound_marks(self, original, updated):
        body = original.body
        start = self.line(original)
        end = self.line(body.body[0]) - 1 if getattr(body, "body", None) else start
        marks = self._marks(start, max(start, end))
        if marks:
            return updated.with_changes(leading_lines=[*updated.leading_lines, *marks])
        return updated

    def leave_If(self, original, updated):
        return self._compound_marks(original, updated)

    def leave_While(self, original, updated):
        return self._compound_marks(original, updated)

    def leave_With(self, original, updated):
        return self._compound_marks(original, updated)

    def _statement(self, orig: cst.BaseSmallStatement, upd: cst.BaseSmallStatement) -> list[str] | None:
        if isinstance(orig, cst.Assign) and len(orig.targets) == 1 and isinstance(orig.targets[0].target, cst.Name):
            name = orig.targets[0].target.value  # what the port's later lines see under this name
            (self.frame.tensors.add if self._strict_tensor(orig.value) else self.frame.tensors.discard)(name)
        if isinstance(orig, cst.Expr) and isinstance(orig.value, cst.Call):
            return self._call_statement(orig.value, upd.value)
        if isinstance(orig, cst.Assign) and len(orig.targets) == 1:
            return self._assign(orig, upd)
        return None

    def _call_statement(self, call: cst.Call, updated) -> list[str] | None:
        func = call.func
        q = self.qual(func)
        if q == "torch.manual_seed":
            return [self.emit(call, "seed", {"seed": self.code(call.args[0].value)})]
        if q == "torch.save":
            obj = call.args[0].value
            if isinstance(obj, cst.Call) and isinstance(obj.func, cst.Attribute) and obj.func.attr.value == "state_dict" \
                    and self.facts.is_module_kind(self.kind(obj.func.value)):
                return [self.emit(call, "save", {"model": self.code(obj.func.value), "path": self.code(call.args[1].value)})]
            raise Left("save", "torch.save of something other than a module's state_dict()")
        if isinstance(func, cst.Name) and func.value in self.facts.effects:
            effects = self.facts.effects[func.value]
            if effects.returns is not None:
                fn = self.facts.functions[func.value]
                params = [a.arg for a in fn.args.args]
                model = arg_node(call, params, effects.returns)
                if not isinstance(model, cst.Name):
                    raise Left("step", f"pass the model as a name and rebind it: m = {func.value}(...)")
                self.events.append(Event(self.line(call), "translated", "step"))
                return [f"{model.value} = {self.code(updated)}"]
            return None
        if not isinstance(func, cst.Attribute):
            return None
        receiver, method = func.value, func.attr.value
        rk = self.kind(receiver)
        r = self.code(receiver)
        if method == "zero_grad" and (rk == OPTIMIZER or self.facts.is_module_kind(rk)):
            self.events.append(Event(self.line(call), "translated", "zero_grad"))
            return []
        if method == "backward" and not (self.facts.is_module_kind(rk) or rk == OPTIMIZER):
            if call.args:
                raise Left("backward", "backward() takes no arguments in Burn (no gradient seed, no retain_graph)")
            return [self.emit(call, "backward", {"loss": self.code(updated.func.value)})]
        if method == "step" and rk == OPTIMIZER and not call.args:
            model = self.facts.model_of(r, self.frame.node if self.frame.kind == "function" else None)
            if model is None:
                raise Left("step", "which model this optimizer steps is not known: "
                                   "model = optimizer.step(lr, model, GradientsParams.from_grads(grads, model))")
            return [self.emit(call, "step", {"model": model, "optimizer": r, "lr": f"{r}_lr"})]
        if method == "step" and rk == SCHEDULER and not call.args:
            opt = self.scheduler_optimizer.get(r)
            if opt is None:
                raise Left("scheduler_step", "the scheduler's optimizer is not known: lr = scheduler.step()")
            return [self.emit(call, "scheduler_step", {"lr_name": f"{opt}_lr", "scheduler": r})]
        if method in ("train", "eval") and self.facts.is_module_kind(rk) and not call.args:
            row_id = "train" if method == "train" else "eval"
            return [self.emit(call, row_id, {"model": r})]
        if method == "load_state_dict" and self.facts.is_module_kind(rk):
            arg = call.args[0].value
            if isinstance(arg, cst.Call) and self.qual(arg.func) == "torch.load":
                return [self.emit(call, "load", {"model": r, "path": self.code(arg.args[0].value)})]
            raise Left("load", "load_state_dict of a state dict in memory: load_torch_state_dict(model, sd)")
        if method == "register_buffer" and isinstance(receiver, cst.Name) and receiver.value == "self":
            name = literal(call.args[0].value)
            if not isinstance(name, str):
                raise Left("buffer", "a buffer with a computed name")
            persistent = arg_node(call, ("name", "tensor", "persistent"), "persistent")
            tensor = self.code(updated.args[1].value)
            if persistent is not None and literal(persistent) is False:
                self.events.append(Event(self.line(call), "translated", "buffer"))
                return [f"self.{name} = {tensor}"]
            return [self.emit(call, "buffer", {"name": name, "tensor": tensor})]
        return None

    def _assign(self, orig: cst.Assign, upd: cst.Assign) -> list[str] | None:
        target = orig.targets[0].target
        value = orig.value
        if isinstance(target, cst.Subscript) and self._strict_tensor(target.value):
            raise Left("slice", "x[i] = y writes in place: x = x.slice_assign(ranges, y)")
        if isinstance(target, cst.Attribute) and target.attr.value in ("weight", "bias") \
                and not (isinstance(target.value, cst.Name) and target.value.value == "self") and self.frame.cls:
            raise Left("weight_tying", None if self._parameter_of_layer(value) else
                       "replacing a layer's parameter in place: build the layer with the value, or keep "
                       "the value as a Param of this module")
        if isinstance(target, cst.Name | cst.Tuple) and self.code(target) == self.code(upd.value):
            self.events.append(Event(self.line(orig), "translated", "batch_from_torch"))
            return []  # x = x.to(device) on a batch already converted
        if not isinstance(value, cst.Call):
            return None
        q = self.qual(value.func)
        if isinstance(target, cst.Name) and target.value == "device" and q is not None \
                and q.startswith(("torch.accelerator.", "torch.cuda.")):
            return [self.emit(orig, "device", {"spec": self.code(upd.value)})]
        if q in OPTIMIZERS and isinstance(target, cst.Name):
            return self._optimizer(orig, value, target.value)
        if q is not None and q.startswith("torch.optim.") and not q.startswith("torch.optim.lr_scheduler"):
            raise Left("optimizer_unsupported")
        if q in SCHEDULERS and isinstance(target, cst.Name):
            return self._scheduler(orig, value, target.value, q)
        if q is not None and q.startswith("torch.optim.lr_scheduler"):
            raise Left("scheduler", f"{q.rsplit('.', 1)[1]} has no row: compose a burn_torch scheduler")
        if isinstance(target, cst.Tuple) and len(target.elements) == 2:
            source = None
            if q in ("torch.max", "torch.min") and len(value.args) >= 2:
                source, dim, method = upd.value.args[0].value, upd.value.args[1].value, q.rsplit(".", 1)[1]
            elif isinstance(value.func, cst.Attribute) and value.func.attr.value in ("max", "min") and value.args \
                    and self._tensor(value.func.value):
                source, dim, method = upd.value.func.value, upd.value.args[0].value, value.func.attr.value
            if source is not None:
                if isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) \
                        and source.func.attr.value == "max_dim_with_indices":
                    source = source.func.value
                kept = [self.code(e.value) for e in target.elements]
                if kept[0] == "_":
                    argm = "argmax" if method == "max" else "argmin"
                    return [f"{kept[1]} = " + self.emit(orig, "argmax", {"x": self.code(source), "method": argm,
                                                                          "dim": self.code(dim), "squeeze": self.code(dim)})]
                return [self.emit(orig, "max_dim", {"targets": ", ".join(kept), "x": self.code(source),
                                                    "method": method, "dim": self.code(dim)})]
        return None

    @staticmethod
    def _parameter_of_layer(value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Attribute) and value.attr.value in ("weight", "bias")

    def _optimizer(self, orig, call: cst.Call, name: str) -> list[str]:
        q = self.qual(call.func)
        params = call.args[0].value if call.args else None
        if not (isinstance(params, cst.Call) and isinstance(params.func, cst.Attribute)
                and params.func.attr.value == "parameters" and not params.args):
            raise Left("optimizer_unsupported")
        config, burn_default = optimizer_config(q, call, self.code)
        lr = bind(call, _OPTIMIZER_PARAMS[q], self.code).get("lr", _OPTIMIZER_LR[q])
        text = self.emit(orig, "optimizer", {"optimizer": name, "config": config, "burn_default": burn_default,
                                             "lr_name": f"{name}_lr", "lr": lr})
        return text.split("\n")

    def _scheduler(self, orig, call: cst.Call, name: str, q: str) -> list[str]:
        opt = self.facts.scheduler_optimizer(self.ast_of(call))
        if opt is None:
            raise Left("scheduler", "the scheduler's optimizer is not a name")
        lr = f"{opt}_lr"
        cls = q.rsplit(".", 1)[1]
        if cls == "StepLR":
            f = bind(call, ("optimizer", "step_size", "gamma", "last_epoch", "verbose"), self.code)
            config = f"StepLrSchedulerConfig({lr}, {f['step_size']}, {f.get('gamma', '0.1')})"
            extra = set(f) - {"optimizer", "step_size", "gamma"}
        elif cls == "ExponentialLR":
            f = bind(call, ("optimizer", "gamma", "last_epoch", "verbose"), self.code)
            config = f"ExponentialLrSchedulerConfig({lr}, {f['gamma']})"
            extra = set(f) - {"optimizer", "gamma"}
        else:
            f = bind(call, ("optimizer", "T_max", "eta_min", "last_epoch", "verbose"), self.code)
            config = f"CosineAnnealingLrSchedulerConfig({lr}, {f['T_max']}, {f.get('eta_min', '0.0')})"
            extra = set(f) - {"optimizer", "T_max", "eta_min"}
        if extra:
            raise Left("scheduler", f"{', '.join(sorted(extra))}: no Burn counterpart")
        return self.emit(orig, "scheduler", {"scheduler": name, "config": config, "lr_name": lr}).split("\n")


_METHOD_ROWS = {"view": "reshape", "reshape": "reshape", "transpose": "transpose", "size": "size",
                "sum": "sum_dim", "mean": "mean_dim", "argmax": "argmax", "split": "split", "chunk": "split"}

_OPTIMIZER_PARAMS = {
    "torch.optim.Adam": ("params", "lr", "betas", "eps", "weight_decay", "amsgrad"),
    "torch.optim.AdamW": ("params", "lr", "betas", "eps", "weight_decay", "amsgrad"),
    "torch.optim.SGD": ("params", "lr", "momentum", "dampening", "weight_decay", "nesterov"),
    "torch.optim.RMSprop": ("params", "lr", "alpha", "eps", "weight_decay", "momentum", "centered"),
    "torch.optim.Adagrad": ("params", "lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"),
}
_OPTIMIZER_LR = {"torch.optim.Adam": "0.001", "torch.optim.AdamW": "0.001", "torch.optim.SGD": "0.001",
                 "torch.optim.RMSprop": "0.01", "torch.optim.Adagrad": "0.01"}


def optimizer_config(q: str, call: cst.Call, code) -> tuple[str, str]:
    """(the Burn config with torch's hyperparameters, Burn's default config) for the torch
    optimizer constructor ``call``. Raises Left for a setting Burn's optimizer lacks."""
    names = _OPTIMIZER_PARAMS[q]
    try:
        f = bind(call, names, code, ("foreach", "maximize", "capturable", "differentiable", "fused"))
    except Unsupported as exc:
        raise Left("optimizer_unsupported", str(exc)) from exc
    cls = _OPTIMIZER_ROWS[q]
    parts: list[str] = []
    betas = arg_node(call, names, "betas")
    if q in ("torch.optim.Adam", "torch.optim.AdamW"):
        if betas is not None:
            if isinstance(betas, (cst.Tuple, cst.List)) and len(betas.elements) == 2:
                parts += [f"beta_1={code(betas.elements[0].value)}", f"beta_2={code(betas.elements[1].value)}"]
            else:
                parts += [f"beta_1={f['betas']}[0]", f"beta_2={f['betas']}[1]"]
        parts.append(f"epsilon={f.get('eps', '1e-08')}")
        if q == "torch.optim.AdamW":
            parts.append(f"weight_decay={f.get('weight_decay', '0.01')}")
        elif "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
        if literal(arg_node(call, names, "amsgrad")) is True:
            if q == "torch.optim.AdamW":
                raise Left("optimizer_unsupported", "AdamW with amsgrad")
            parts.append("amsgrad=True")
    elif q == "torch.optim.SGD":
        momentum = literal(arg_node(call, names, "momentum"))
        if "momentum" in f and momentum != 0:
            extra = f", dampening={f.get('dampening', '0.0')}"
            if "nesterov" in f:
                extra += f", nesterov={f['nesterov']}"
            parts.append(f"momentum=MomentumConfig({f['momentum']}{extra})")
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    elif q == "torch.optim.RMSprop":
        parts += [f"alpha={f.get('alpha', '0.99')}", f"momentum={f.get('momentum', '0.0')}",
                  f"epsilon={f.get('eps', '1e-08')}"]
        if "centered" in f:
            parts.append(f"centered={f['centered']}")
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    elif q == "torch.optim.Adagrad":
        if "initial_accumulator_value" in f and literal(arg_node(call, names, "initial_accumulator_value")) != 0:
            raise Left("optimizer_unsupported", "initial_accumulator_value")
        parts += [f"lr_decay={f.get('lr_decay', '0.0')}", f"epsilon={f.get('eps', '1e-10')}"]
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    return f"{cls}({', '.join(parts)})", f"{cls}()"


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for e in target.elements:
            if not isinstance(e.value, cst.Name):
                return []
            out.append(e.value.value)
        return out
    return []


def _insert_imports(module: cst.Module, rendered: Sequence[str]) -> cst.Module:
    lines = needed_imports("\n".join(rendered))
    if any("DEVICE" in r for r in rendered):
        lines.append(DEVICE_LINE)
    if not lines:
        return module
    body = list(module.body)
    position = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)):
            position = i + 1
        elif isinstance(stmt, cst.SimpleStatementLine) and i == 0 and isinstance(stmt.body[0], cst.Expr) \
                and isinstance(stmt.body[0].value, cst.SimpleString):
            position = 1
        elif not isinstance(stmt, cst.SimpleStatementLine) or position:
            if position:
                break
    new = [cst.parse_statement(line + "\n") for line in lines]
    return module.with_changes(body=[*body[:position], *new, *body[position:]])


def translate_source(text: str, table: Mapping[str, Row] | None = None) -> Translation:
    """The burn_torch port of the PyTorch program ``text``. ``table`` replaces the mapping
    table's rows by id (the mutation test passes deliberately wrong ones). Raises SyntaxError
    for invalid Python."""
    rows = dict(BY_ID)
    if table is not None:
        rows.update(table)
    facts = Facts(text)
    wrapper = MetadataWrapper(cst.parse_module(text))
    rewriter = _Rewriter(facts, rows, wrapper.module)
    ported = wrapper.visit(rewriter)
    ported = _insert_imports(ported, rewriter.rendered)
    events = sorted(rewriter.events, key=lambda e: (e.line, e.kind))
    return Translation(text, ported.code, events)


__all__ = ["Event", "Translation", "translate_source", "MARK", "NO_ROW", "optimizer_config", "re", "MODULE",
           "Instance", "Iter"]
