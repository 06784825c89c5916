"""Detectors of training-loop idioms: accumulation, schedulers, optimizer state and groups,
losses, mixed precision, data parallelism and collectives, compilation, distributions, and
code that asks for bit-reproducible kernels.

Registered on import by ``burn_torch_check.detectors``.
"""
from __future__ import annotations

import ast

from .analysis import OPTIMIZER, SCHEDULER, UNKNOWN
from .detectors import at, at_name, detector, function, function_detector, method

# ============================================================= accumulation ====
def _calls(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and not n.args for n in ast.walk(node))


def _modulo_test(test: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test))


@detector("accumulated_step", ast.If,
          idiom="`if (i + 1) % accum == 0: optimizer.step()` after backward passes (accumulation)")
def _accumulation(node, a):
    if a.side_by_side or not _modulo_test(node.test) or not _calls(node, "step") \
            or any(_calls(s, "backward") for s in node.body):
        return None
    loop = a.parent.get(node)
    while loop is not None and not isinstance(loop, (ast.For, ast.While, ast.FunctionDef, ast.Module)):
        loop = a.parent.get(loop)
    if not isinstance(loop, (ast.For, ast.While)):
        return None
    backward_outside = any(_calls(s, "backward") for s in loop.body if s is not node
                           and not any(n is node for n in ast.walk(s)))
    return at(node) if backward_outside else None


# ================================================ optimizers and schedulers ====
function_detector("lbfgs_optimizer", {"torch.optim.LBFGS", "torch.optim.lbfgs.LBFGS"},
                  idiom="`torch.optim.LBFGS(...)`")


@detector("scheduler_step_call", ast.Call, idiom="`scheduler.step()` of a torch learning-rate scheduler")
def _scheduler_step(node, a):
    name = method(node, a, {"step"})
    if name is not None and not a.side_by_side and a.kind(name.value) == SCHEDULER:
        return at_name(name)
    return None


@detector("optimizer_state_dict_call", ast.Call,
          idiom="`optimizer.state_dict()` / `scheduler.load_state_dict(...)`")
def _optimizer_state(node, a):
    name = method(node, a, {"state_dict", "load_state_dict"})
    if name is not None and not a.side_by_side and a.kind(name.value) in (OPTIMIZER, SCHEDULER):
        return at_name(name)
    return None


@detector("param_groups_use", ast.Attribute, ast.Call,
          idiom="`optimizer.param_groups` and `[{'params': ..., 'lr': ...}]` parameter groups")
def _param_groups(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, ast.Attribute):
        if node.attr == "param_groups" and a.qualname(node) is None \
                and a.kind(node.value) in (OPTIMIZER, UNKNOWN):
            return at_name(node)
        return None
    q = a.qualname(node.func) or ""
    if q.startswith("torch.optim.") and node.args and isinstance(node.args[0], ast.List) \
            and node.args[0].elts and all(isinstance(e, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "params" for k in e.keys)
                for e in node.args[0].elts):
        return at(node.args[0])
    return None


# =================================================================== losses ====
function_detector("nll_loss_call", {"torch.nn.functional.nll_loss", "torch.nn.NLLLoss"},
                  idiom="`F.nll_loss(...)` / `nn.NLLLoss()`")
function_detector("binary_cross_entropy_call",
                  {"torch.nn.functional.binary_cross_entropy",
                   "torch.nn.functional.binary_cross_entropy_with_logits",
                   "torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss"},
                  idiom="`F.binary_cross_entropy(...)`, `nn.BCELoss()`, `nn.BCEWithLogitsLoss()`")


# =========================================================== mixed precision ====
_AUTOCAST = {"torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast",
             "torch.cpu.amp.autocast", "torch.cuda.amp.GradScaler", "torch.amp.GradScaler",
             "torch.cpu.amp.GradScaler", "torch.GradScaler"}


@detector("autocast_or_grad_scaler", ast.Call, ast.Attribute,
          idiom="`torch.autocast(...)`, `torch.cuda.amp.autocast()`, `GradScaler()`")
def _amp(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, ast.Call):
        return at(node, (node.func,)) if a.qualname(node.func) in _AUTOCAST else None
    if a.qualname(node) in _AUTOCAST and isinstance(a.parent.get(node), ast.FunctionDef):
        return at(node)  # @torch.autocast used bare as a decorator
    return None


# ====================================================== parallelism, compiling ====
function_detector("data_parallel_wrap",
                  {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
                   "torch.nn.parallel.DataParallel",
                   "torch.distributed.fsdp.FullyShardedDataParallel"},
                  idiom="`DistributedDataParallel(model)` / `nn.DataParallel(model)`")

_COLLECTIVES = {f"torch.distributed.{n}" for n in (
    "all_reduce", "all_gather", "all_gather_into_tensor", "broadcast", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "gather", "scatter")}
function_detector("distributed_collective_call", _COLLECTIVES,
                  idiom="`dist.all_reduce(t)` and the other in-place torch.distributed collectives")


@detector("torch_compile_call", ast.Call, ast.Attribute, idiom="`torch.compile(model)` / `@torch.compile`")
def _compile(node, a):
    if isinstance(node, ast.Call):
        return at(node, (node.func,)) if function(node, a, {"torch.compile"}) else None
    if a.qualname(node) == "torch.compile" and isinstance(a.parent.get(node), ast.FunctionDef) \
            and not a.side_by_side:
        return at(node)
    return None


@detector("distribution_object", ast.Call, idiom="`torch.distributions.Normal(mu, sigma)` and the others")
def _distribution(node, a):
    q = a.qualname(node.func) or ""
    if q.startswith("torch.distributions.") and q.rpartition(".")[2][:1].isupper() and not a.side_by_side:
        return at(node, (node.func,))
    return None


# ======================================================= reproducible kernels ====
_DETERMINISTIC = {"torch.backends.cudnn.deterministic"}


@detector("deterministic_kernels", ast.Assign, ast.Call,
          idiom="`torch.backends.cudnn.deterministic = True` / `torch.use_deterministic_algorithms(True)`")
def _deterministic(node, a):
    if a.side_by_side:
        return None
    if isinstance(node, ast.Assign):
        return at(node) if any(a.qualname(t) in _DETERMINISTIC for t in node.targets) else None
    return at(node, (node.func,)) if a.qualname(node.func) == "torch.use_deterministic_algorithms" else None

