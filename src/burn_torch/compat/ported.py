"""Runtime support for ports written by ``burn-torch-port``: the ``pair`` helper a translated
layer may call, and ``verify_translation``, which the verification script written beside a
port runs.

``load_definitions`` executes only a program's definitions (imports, classes, functions and
constant assignments, never its training loop or data downloads), so a script that trains at
import time can still be compared with its port.
"""
from __future__ import annotations

import ast
import re
import sys
import types
from pathlib import Path
from typing import Any, Sequence

import torch

from .. import optim
from ..device import Device
from .verify import PortReport, verify_port

__all__ = ["pair", "shape", "load_definitions", "verify_translation"]

_KEPT_CALLS = re.compile(r"^(torch\.device|torch\.cuda\.is_available|torch\.accelerator\.\w+|Device(\.\w+)?|"
                         r"\w+(\.\w+)*\.(autodiff|default|cpu|init)|(\w+\.)*\w*(Loss|Config)|"
                         r"int|float|str|bool|tuple|list|dict|dataclass|field)$")


def pair(value: int | Sequence[int], n: int = 2) -> list[int]:
    """Burn's sequence argument for torch's ``int or tuple`` one: ``[v] * n`` for an int, the
    values as a list otherwise. Raises ValueError for a sequence of another length."""
    if isinstance(value, int):
        return [value] * n
    values = list(value)
    if len(values) != n:
        raise ValueError(f"pair: expected {n} values, got {values}")
    return values


def shape(value: int | Sequence[int]) -> list[int]:
    """Burn's shape argument for torch's one-argument shape (``torch.ones(n)``: an int or a
    sequence)."""
    return [value] if isinstance(value, int) else list(value)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "." + ".".join(reversed(parts))
    return ".".join([getattr(node, "id", "?"), *reversed(parts)])


def _definition(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
        calls = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
        return all(_KEPT_CALLS.match(_dotted(c.func)) for c in calls)
    return False


def load_definitions(path: str | Path, name: str = "definitions") -> dict[str, Any]:
    """The namespace of ``path`` after running only its definitions (see the module docstring),
    as module ``name`` (registered in ``sys.modules``, replacing a module of that name);
    an import that fails with ImportError is skipped. Raises OSError for an unreadable file, SyntaxError for invalid code and whatever a
    definition raises."""
    source = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses and pickling look their class's module up
    namespace: dict[str, Any] = module.__dict__
    for stmt in (s for s in tree.body if _definition(s)):
        code = compile(ast.Module([stmt], []), str(path), "exec")
        try:
            exec(code, namespace)  # noqa: S102 - the user's own program, definitions only
        except ImportError:
            if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                raise
            # a data library the definitions do not need (torchvision...): a use raises NameError
    return namespace


def _target(loss: str, output: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    if loss in ("cross_entropy", "nll_loss"):
        return torch.randint(0, output.shape[-1], output.shape[:-1], generator=gen)
    if loss == "bce":
        return torch.randint(0, 2, output.shape, generator=gen).float()
    return torch.randn(output.shape, generator=gen)


def _losses(loss: str, device: Device):
    from .. import nn
    import torch.nn.functional as F
    if loss in ("cross_entropy", "nll_loss"):  # nll_loss on log_softmax outputs: the same cross-entropy
        torch_fn = F.cross_entropy if loss == "cross_entropy" else F.nll_loss
        ce = nn.CrossEntropyLossConfig().init(device)
        return (lambda out, target: torch_fn(out.reshape(-1, out.shape[-1]), target.reshape(-1)),
                lambda out, target: ce.forward(out.reshape([-1, out.dims()[-1]]), target.reshape([-1])))
    if loss == "bce":  # Burn's targets are Int labels
        bce = nn.BinaryCrossEntropyLossConfig().init(device)
        return F.binary_cross_entropy, lambda out, target: bce.forward(out, target.int())
    return F.mse_loss, nn.MseLoss().forward


def verify_translation(original: str | Path, port: str | Path, model: str, inputs: str, loss: str = "mse",
                       torch_optimizer: str | None = None, burn_optimizer: str | None = None, steps: int = 3,
                       seed: int = 0, port_model: str | None = None, **options: Any) -> PortReport:
    """Runs [`verify_port`][burn_torch.compat.verify.verify_port] on a program and its port:
    ``model`` (a constructor call, evaluated in each file's definitions; ``port_model``, when given,
    is the port's expression instead) built on both sides, ``inputs`` (a torch expression evaluated
    in the original's definitions, a tuple for several inputs) as the batch, a target drawn for
    ``loss`` (``cross_entropy``, ``nll_loss``, ``bce`` or ``mse``) and, with ``torch_optimizer`` (an
    expression where ``{params}`` stands for the torch model's parameters) and ``burn_optimizer``
    (the port's optimizer config expression, evaluated with ``burn_torch.optim``'s names), ``steps``
    training steps side by side. ``options`` go to ``verify_port`` (``strict``, ``mode``...). Raises
    what evaluating an expression raises (NameError: edit the script's expressions)."""
    torch.manual_seed(seed)
    torch_ns = load_definitions(original, "_burn_torch_port_original")
    port_ns = load_definitions(port, "_burn_torch_port_translation")
    torch_model = eval(model, torch_ns)  # noqa: S307 - expressions written by the translator
    burn_model = eval(port_model or model, port_ns)  # noqa: S307
    gen = torch.Generator().manual_seed(seed + 1)
    batch_inputs = eval(inputs, {**torch_ns, "generator": gen})  # noqa: S307
    batch_inputs = batch_inputs if isinstance(batch_inputs, tuple) else (batch_inputs,)
    with torch.no_grad():
        output = torch_model(*batch_inputs)
    output = output[0] if isinstance(output, (tuple, list)) else output
    batch = (*batch_inputs, _target(loss, output, gen))
    device = (burn_model.devices() or [Device.cpu()])[0].autodiff()
    torch_fn, burn_fn = _losses(loss, device)

    def first(out):  # a model returning (output, state...): the loss reads the output
        return out[0] if isinstance(out, (tuple, list)) else out

    def torch_loss(out, target):
        return torch_fn(first(out), target)

    def burn_loss(out, target):
        return burn_fn(first(out), target)
    kwargs: dict[str, Any] = dict(options)
    if torch_optimizer is not None and burn_optimizer is not None and steps:
        params = "__params__"
        kwargs.update(steps=steps,
                      torch_optimizer=eval(torch_optimizer.format(params=params),  # noqa: S307
                                           {**torch_ns, params: torch_model.parameters()}),
                      burn_optimizer=eval(burn_optimizer, {**vars(optim), **port_ns}))  # noqa: S307
    return verify_port(torch_model, burn_model, batch, torch_loss, burn_loss, **kwargs)
