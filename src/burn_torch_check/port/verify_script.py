"""The verification script written beside a port: ``verify_translation`` (in
``burn_torch.compat.ported``) on the original and the port, with the model, an input batch, the
loss and the optimizer read off the program.

What the program does not say (the input's shape, beyond the first layer's width) is guessed
and marked ``# EDIT`` in the script. Torch-free: this module writes text.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from ..analysis import Analysis
from .facts import OPTIMIZERS
from .optimizers import optimizer_config

_LOSSES = {"torch.nn.CrossEntropyLoss": "cross_entropy", "torch.nn.functional.cross_entropy": "cross_entropy",
           "torch.nn.NLLLoss": "nll_loss", "torch.nn.functional.nll_loss": "nll_loss",
           "torch.nn.BCELoss": "bce", "torch.nn.functional.binary_cross_entropy": "bce",
           "torch.nn.MSELoss": "mse", "torch.nn.functional.mse_loss": "mse"}


@dataclass
class Plan:
    """What the script compares: the constructor call, the input expression (and whether it was
    guessed), the loss kind and the optimizer expressions (None: no training steps)."""

    model: str
    port_model: str | None
    inputs: str
    guessed: bool
    loss: str
    torch_optimizer: str | None
    burn_optimizer: str | None


def _module_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            names |= {getattr(stmt, "name", None)} | {a.asname or a.name.split(".")[0] for a in getattr(stmt, "names", [])}
    return names | {"torch", "nn", "F", "True", "False", "None", "generator"}


def _free_names(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _first_layer(a: Analysis, cls: ast.ClassDef) -> tuple[str, list[str]] | None:
    calls = sorted((n for n in ast.walk(cls) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for node in calls:
        q = a.qualname(node.func) or ""
        if q in ("torch.nn.Linear", "torch.nn.Conv2d", "torch.nn.Conv1d", "torch.nn.Embedding",
                 "torch.nn.LSTM", "torch.nn.GRU") and node.args:
            return q, [ast.unparse(x) for x in node.args]
    return None


def plan(source: str) -> Plan | None:
    """What to verify for the program ``source``, or None when it builds no model of its own."""
    tree = ast.parse(source)
    a = Analysis(tree)
    module_classes = a._module_classes
    known = _module_level_names(tree)
    model_call, port_model, layers = None, None, None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in module_classes \
                and a.enclosing_class(node) is None:
            model_call, layers = node, a.classes[node.func.id]
            break
    if model_call is None:  # a torch layer as the model: model = nn.Linear(...) at the top level
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Call) and (a.qualname(stmt.value.func) or "").startswith("torch.nn.") \
                    and stmt.targets[0].id in ("model", "net"):
                model_call, port_model, layers = stmt.value, stmt.targets[0].id, stmt
                break
    if model_call is None:
        return None
    model = ast.unparse(model_call)
    cls = layers
    guessed = True
    inputs = "torch.randn(4, 8, generator=generator)  # EDIT: an input batch for the model"
    layer = _first_layer(a, cls)
    fixed = lambda expr: _free_names(ast.parse(expr, mode="eval")) <= known  # noqa: E731
    if layer is not None:
        q, args = layer
        width = args[0]
        if fixed(width):
            guessed = q not in ("torch.nn.Linear", "torch.nn.Embedding")
            if q == "torch.nn.Linear":
                inputs = f"torch.randn(4, {width}, generator=generator)"
            elif q == "torch.nn.Conv2d":
                inputs = f"torch.randn(4, {width}, 28, 28, generator=generator)  # EDIT: the image size"
            elif q == "torch.nn.Conv1d":
                inputs = f"torch.randn(4, {width}, 32, generator=generator)  # EDIT: the length"
            elif q == "torch.nn.Embedding":
                inputs = f"torch.randint(0, {width}, (4, 8), generator=generator)"
            else:
                inputs = f"torch.randn(8, 4, {width}, generator=generator)  # EDIT: [seq, batch] unless batch_first"
    loss = "mse"
    for node in ast.walk(tree):
        q = a.qualname(node.func) if isinstance(node, ast.Call) else None
        if q in _LOSSES:
            loss = _LOSSES[q]
            break
    torch_opt = burn_opt = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and a.qualname(node.func) in OPTIMIZERS and node.args:
            rest = ast.Call(node.func, [ast.Name("PARAMS")] + node.args[1:], node.keywords)
            text = ast.unparse(rest).replace("PARAMS", "{params}")
            if _free_names(ast.Call(node.func, node.args[1:], node.keywords)) <= known:
                call = cst.parse_expression(ast.unparse(node))
                try:
                    burn_opt, _ = optimizer_config(a.qualname(node.func), call, cst.Module([]).code_for_node)
                    torch_opt = text
                except Exception:  # a setting Burn lacks: the script then checks no training steps
                    burn_opt = None
            break
    if not fixed(model.split("(", 1)[1].rstrip(")") or "0"):
        model += "  # EDIT: arguments the program computes at run time"
    return Plan(model, port_model, inputs, guessed, loss, torch_opt, burn_opt)


def script(original: Path, port: Path, source: str) -> str | None:
    """The text of the verification script for ``port`` (a translation of ``original``), or None
    when the program builds no model of its own."""
    p = plan(source)
    if p is None:
        return None
    steps = p.torch_optimizer is not None and p.burn_optimizer is not None
    lines = [
        f'"""Verifies {port.name} against {original.name}: forward, every gradient under torch\'s names'
        + (", and training steps side by side" if steps else "") + '.',
        "",
        "Written by burn-torch-port. Lines marked EDIT are guesses: adjust them to your program.",
        '"""',
        "from pathlib import Path",
        "",
        "from burn_torch.compat.ported import verify_translation",
        "",
        "HERE = Path(__file__).parent",
        "report = verify_translation(",
        f"    HERE / {original.name!r}, HERE / {port.name!r},",
        _argument("model", p.model),
        *([_argument("port_model", p.port_model)] if p.port_model else []),
        _argument("inputs", p.inputs),
        f"    loss={p.loss!r},",
    ]
    if steps:
        lines += [f"    torch_optimizer={p.torch_optimizer!r},", f"    burn_optimizer={p.burn_optimizer!r},",
                  "    steps=3,"]
    lines += [")", "report.print()", "assert report.passed, report.summary()", ""]
    return "\n".join(lines)


def _argument(name: str, expr: str) -> str:
    """``    name='expr',`` with a trailing ``# EDIT`` comment of ``expr`` after the comma."""
    code, sep, comment = expr.partition("  #")
    return f"    {name}={code!r}," + (f"  #{comment}" if sep else "")
