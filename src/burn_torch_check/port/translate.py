"""The translator: a libcst transformer that rewrites a PyTorch program into burn_torch, row by row
of the mapping table (``.table``), keeping comments and layout elsewhere.

``translate_source`` returns a ``Translation``: the port's source and one
``Event`` per rewritten or left place. A line whose meaning burn_torch cannot keep
stays as it was under a ``# burn-torch-port: BTnnn <why>`` comment; nothing is rewritten without a
row. The rules are in ``.expressions`` and ``.statements``; this module holds the
transformer's plumbing (positions, kinds, scopes, devices, the events) and the entry point.
Torch-free: it reads the program, never runs it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .events import MARK, Event, Left, Translation
from .expressions import ExpressionRules
from .facts import SCHEDULERS, Facts
from .imports import BURN_NAMES, DEVICE_LINE, needed_imports
from .statements import StatementRules
from .table import BY_ID, Row
from .template import render
from ..analysis import UNKNOWN


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


class _Rewriter(ExpressionRules, StatementRules, cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, facts: Facts, table: Mapping[str, Row], module: cst.Module) -> None:
        super().__init__()
        self.facts, self.table, self.module = facts, table, module
        self.events: list[Event] = []
        self._left_lines: dict[int, list[Event]] = {}
        self.rendered: list[str] = []
        self.frames = [_Frame("module", facts.tree, device=self._device_of(facts.tree))]
        self.torch_aliases = {alias for alias, q in facts.imports.items() if q == "torch.nn"}
        self.renamed = {alias: f"torch_{alias}" if alias != "nn" else "tnn"
                        for alias, q in facts.imports.items()
                        if alias in BURN_NAMES and (q.split(".")[0] == "torch")}
        self.scheduler_optimizer = self._scheduler_optimizers()
        self._in_import = 0
        self._torch_roots = {self.renamed.get(alias, alias): q for alias, q in facts.imports.items()
                             if q.split(".")[0] == "torch"}
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
        assignment in the function or at the module level), else the port's ``DEVICE``."""
        frame = self.frame
        if frame.in_init:
            return "device"
        line = self.line(node)
        for scope in (frame.node, self.facts.tree):
            first = self.facts.device_binding(scope)
            if first is not None and first < line:
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

    def record(self, event: Event) -> None:
        self.events.append(event)
        if event.kind == "left":
            self._left_lines.setdefault(event.line, []).append(event)

    def _left_between(self, first: int, last: int) -> list[Event]:
        return [e for line in range(first, last + 1) for e in self._left_lines.get(line, ())]

    def emit(self, node: cst.CSTNode, row_id: str, fields: Mapping[str, str | None]) -> str:
        """Row ``row_id``'s template filled with ``fields``; records the event."""
        text = render(self.table[row_id].burn, {"device": self.device_at(node), **fields})
        self.rendered.append(text)
        self.record(Event(self.line(node), "translated", row_id))
        return text

    def leave_place(self, node: cst.CSTNode, exc: Left) -> None:
        row = self.table.get(exc.row) if exc.row else None
        why = exc.why or (row.left if row else "") or (f"{row.torch}: not translatable here" if row else "")
        code = row.code if row is not None else ""
        self.record(Event(self.line(node), "left", exc.row, why, code))

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
                self.record(Event(self.line(original), "translated", "own_module"))
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
        return self.facts.function_at(node.name.value, self.line(node))

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
            self.record(Event(self.line(original), "translated", "own_module"))
            return updated.with_changes(params=params)
        effects = self.facts.effects.get(original.name.value) if frame.cls is None else None
        if effects is None or (effects.returns is None and not effects.lr_params):
            return updated
        names = {p.name.value for p in (*params.params, *params.kwonly_params)}
        extra = [cst.Param(cst.Name(lr)) for lr in effects.lr_params.values() if lr not in names]
        if extra:  # keyword-only, so that callers' positional arguments keep their places
            star = params.star_arg if isinstance(params.star_arg, cst.Param) else cst.ParamStar()
            params = params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, *extra])
            self.record(Event(self.line(original), "translated", "step"))
        body = updated.body
        if effects.returns is not None:
            returns = [n for n in ast.walk(frame.node) if isinstance(n, ast.Return)]
            if returns:
                self.record(Event(self.line(original), "left", "step",
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
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)  # parsed here, never shared
    rewriter = _Rewriter(facts, rows, wrapper.module)
    ported = wrapper.visit(rewriter)
    ported = _insert_imports(ported, rewriter.rendered)
    events = sorted(rewriter.events, key=lambda e: (e.line, e.kind))
    return Translation(text, ported.code, events)


__all__ = ["Event", "Left", "MARK", "Translation", "translate_source"]
