"""``--fix``: the rewrites that are certain, applied with libcst (comments and layout kept).

A finding whose detector knows the exact burn_torch form carries a ``Fix``
for the call whose method name it points at: renamed methods (``x.item()`` →
``x.into_scalar()``), dim reductions with a literal dim (``x.sum(1)`` →
``x.sum_dim(1).squeeze_dim(1)``), ``x.unsqueeze(d)`` → ``x.unsqueeze_dim(d)``,
``x.transpose(a, b)`` → ``x.swap_dims(a, b)``, sizes passed as separate arguments
(``x.reshape(n, -1)`` → ``x.reshape([n, -1])``), ``x.pow(2)`` → ``x.powf_scalar(2)``, a call
of a module built in the file (``model(x)`` → ``model.forward(x)``), and a discarded
``model.train()`` → ``model = model.train()`` (only where the assignment cannot turn a global
into a local). Everything else is left for the porter. A rewrite never produces code the
checker would rewrite again: fixing a fixed file changes nothing.
"""
from __future__ import annotations

from typing import Sequence

from .check import Finding
from .detectors import Fix


def fix_source(text: str, findings: Sequence[Finding]) -> tuple[str, int]:
    """``text`` with every fixable finding rewritten; returns (new text, number of rewrites)."""
    fixes = {(f.line, f.col - 1): f.fix for f in findings if f.fix is not None and not f.fix.call}
    call_fixes = {(f.line, f.col - 1): f.fix for f in findings if f.fix is not None and f.fix.call}
    if not fixes and not call_fixes:
        return text, 0
    import libcst as cst  # only --fix needs it: the checker itself starts without it
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(cst.parse_module(text))
    module = wrapper.module

    class Rewriter(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self) -> None:
            super().__init__()
            self.applied = 0

        def _fix_of(self, call: cst.Call) -> Fix | None:
            if not isinstance(call.func, cst.Attribute):
                return None
            pos = self.get_metadata(PositionProvider, call.func.attr).start
            return fixes.get((pos.line, pos.column))

        def _call_fix_of(self, call: cst.Call) -> Fix | None:
            pos = self.get_metadata(PositionProvider, call.func).start
            return call_fixes.get((pos.line, pos.column))

        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            call_fix = self._call_fix_of(original)
            if call_fix is not None:  # model(x) → model.forward(x)
                self.applied += 1
                func = module.code_for_node(updated.func)
                return updated.with_changes(func=cst.parse_expression(
                    f"{func}.{call_fix.template.partition('(')[0]}"))
            fix = self._fix_of(original)
            if fix is None or fix.rebind:
                return updated
            values = [module.code_for_node(a.value) for a in updated.args]
            receiver = module.code_for_node(updated.func.value)
            self.applied += 1
            return cst.parse_expression(
                f"{receiver}.{fix.template.format(*values, args=', '.join(values))}")

        def leave_Expr(self, original: cst.Expr, updated: cst.Expr):
            if not isinstance(original.value, cst.Call):
                return updated
            fix = self._fix_of(original.value)
            if fix is None or not fix.rebind:
                return updated
            target = updated.value.func.value
            receiver = module.code_for_node(target)
            self.applied += 1
            return cst.Assign(targets=[cst.AssignTarget(target)],
                              value=cst.parse_expression(f"{receiver}.{fix.template}"))

    rewriter = Rewriter()
    new = wrapper.visit(rewriter)
    return new.code, rewriter.applied
