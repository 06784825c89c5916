"""The translator's statement rules: the training loop (zero_grad, backward, the optimizer step,
schedulers, train/eval, saving), batch conversion at the head of a loader loop, statements split
or removed, and the marker comments of left places (a mixin of the transformer in
``.translate``). Torch-free."""
from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from .args import Unsupported, arg_node, bind, literal
from .events import MARK, Event, Left
from .expressions import _KEEP_TORCH
from .facts import OPTIMIZERS, SCHEDULERS, is_loader
from .optimizers import _OPTIMIZER_LR, _OPTIMIZER_PARAMS, optimizer_config
from ..analysis import OPTIMIZER, SCHEDULER


class StatementRules:
    """The rules that rewrite statements; the transformer supplies ``code``, ``kind``, ``emit``..."""

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
        if not imports and not self._left_between(first, last):
            leftover = next(filter(None, map(self._torch_left_in, statements)), None)
            if leftover:
                self.record(Event(first, "left", None, f"{leftover} stays torch: it has no row in "
                                                              "the mapping table"))
        marks = self._marks(first, last)
        if not replaced:
            if marks:
                return updated.with_changes(leading_lines=[*updated.leading_lines, *marks])
            return updated
        if not lines:
            if marks:
                return updated.with_changes(leading_lines=[*updated.leading_lines, *marks])
            self._carry.extend(updated.leading_lines)  # its comments and blank lines stay in place
            return cst.RemovalSentinel.REMOVE
        head = statements[0].with_changes(leading_lines=[*updated.leading_lines, *marks])
        if updated.trailing_whitespace.comment is not None and isinstance(head, cst.SimpleStatementLine):
            head = head.with_changes(trailing_whitespace=updated.trailing_whitespace)
        return cst.FlattenSentinel([head, *statements[1:]])

    def _torch_left_in(self, updated: cst.CSTNode) -> str | None:
        """The first torch name (``torch.nn.init.normal_``) the translated statement still uses
        that is not torch-side code a port keeps (data loading, ``no_grad``, seeding...)."""
        roots = self._torch_roots
        text = self.code(updated)
        if not any(root in text for root in roots):
            return None
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
        for e in self._left_between(first, last):
            if (e.code, e.reason) not in seen:
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
                self.record(Event(self.line(call), "translated", "step"))
                return [f"{model.value} = {self.code(updated)}"]
            return None
        if not isinstance(func, cst.Attribute):
            return None
        receiver, method = func.value, func.attr.value
        rk = self.kind(receiver)
        r = self.code(receiver)
        if method == "zero_grad" and (rk == OPTIMIZER or self.facts.is_module_kind(rk)):
            self.record(Event(self.line(call), "translated", "zero_grad"))
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
                self.record(Event(self.line(call), "translated", "buffer"))
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
            self.record(Event(self.line(orig), "translated", "batch_from_torch"))
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
