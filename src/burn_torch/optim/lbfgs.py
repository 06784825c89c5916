"""L-BFGS (Burn's ``LBFGS``; the algorithm of ``torch.optim.LBFGS``, Nocedal & Wright).

Burn's form: ``optimizer.step(lr, module, closure) -> (module, loss)``, where
``closure(module) -> (loss, GradientsParams)`` evaluates the loss of the module it is given
(a float) and its gradients. It is called once at the start and once per iteration (more with
the strong-Wolfe line search) on modules whose parameters hold the trial values; ``step``
returns the module after the last iteration and the last loss. The optimizer keeps its history
between steps, as Burn's (and torch's) does.

Per iteration (on the parameters flattened into one vector, in module order): the direction
``d = -H g`` from the two-loop recursion over the last ``history_size`` pairs ``(s, y)`` (a
pair is kept when ``y.s > 1e-10``; ``H_0 = (y.s / y.y) I``), the step ``t = lr`` (the very first
one ``min(1, 1 / |g|_1) * lr``), then either ``x += t d`` (no line search) or the strong-Wolfe
search (``c1 = 1e-4``, ``c2 = 0.9``). It stops after ``max_iter`` iterations, ``max_eval``
closure calls (default ``max_iter * 5 / 4``), when ``max|g| <= tolerance_grad``, when the
directional derivative exceeds ``-tolerance_change``, or when the step or the loss change is
below ``tolerance_change``.
"""
from __future__ import annotations

import enum
from typing import Callable

import torch

from ..autodiff.graph import new_leaf
from ..autodiff.recorder import wrap
from ..module import Config, Module, ModuleMapper, ModuleVisitor, Param
from .grads import GradientsParams


class LineSearchFn(enum.Enum):
    """Burn's ``LineSearchFn``: no line search, or the strong-Wolfe conditions."""

    NONE = "none"
    STRONG_WOLFE = "strong_wolfe"


class LBFGSConfig(Config):
    """Configuration of [`LBFGS`][burn_torch.optim.lbfgs.LBFGS] (Burn's fields and defaults)."""

    max_iter: int = 20
    history_size: int = 100
    tolerance_grad: float = 1e-7
    tolerance_change: float = 1e-9
    max_eval: int | None = None
    line_search_fn: LineSearchFn = LineSearchFn.NONE

    def init(self) -> "LBFGS":
        """The optimizer (``max_eval`` defaults to ``max_iter * 5 // 4``). ValueError for a
        ``max_iter`` or ``history_size`` below 1."""
        if self.max_iter < 1 or self.history_size < 1:
            raise ValueError("LBFGS: max_iter and history_size must be at least 1")
        max_eval = self.max_eval if self.max_eval is not None else self.max_iter * 5 // 4
        return LBFGS(self.with_max_eval(max_eval))


class _FloatParams(ModuleVisitor):
    def __init__(self) -> None:
        self.params: list[Param] = []

    def visit_float(self, param: Param) -> None:
        self.params.append(param)


def _float_params(module: Module) -> list[Param]:
    v = _FloatParams()
    module.visit(v)
    return v.params


class _FromFlat(ModuleMapper):
    """Every Float parameter set to its slice of ``flat`` (a fresh ``require_grad()`` leaf
    when the old value was one)."""

    def __init__(self, flat: torch.Tensor) -> None:
        self.flat = flat
        self.offset = 0

    def map_float(self, param: Param) -> Param:
        def replace(t):
            data = t.to_torch()
            n = data.numel()
            value = self.flat[self.offset:self.offset + n].view(data.shape).to(data.dtype).clone()
            self.offset += n
            leaf = new_leaf(value.shape, value.dtype) if t.is_require_grad() else None
            return wrap(value, t.gradient_checkpointing_strategy(), leaf)
        return param.map(replace)


def _flat_grad(params: list[Param], grads: GradientsParams, dtype) -> torch.Tensor:
    """The gradients of ``params`` (zeros where absent) as one vector."""
    parts = []
    for p in params:
        g = grads.get(p.id)
        data = p.val().to_torch()
        parts.append(data.new_zeros(data.numel(), dtype=dtype) if g is None
                     else g.to_torch().reshape(-1).to(dtype))
    return torch.cat(parts)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square ** 0.5
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1, c2, tolerance_change, max_ls):
    """``(loss, grad, t, evaluations)`` of the strong-Wolfe line search along ``d``."""
    d_norm = float(d.abs().max())
    f_new, g_new = obj(x, t, d)
    evals = 1
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            return f_new, g_new, t, evals
        if gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    (t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if bracket is None:
        bracket = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
    insuf_progress = False
    low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1][0] - bracket[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(*bracket[0][:2], bracket[0][3], *bracket[1][:2], bracket[1][3])
        b_min, b_max = min(bracket[0][0], bracket[1][0]), max(bracket[0][0], bracket[1][0])
        eps = 0.1 * (b_max - b_min)
        if min(b_max - t, t - b_min) < eps:
            if insuf_progress or t >= b_max or t <= b_min:
                t = b_max - eps if abs(t - b_max) < abs(t - b_min) else b_min + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new, gtd_new]
        else:
            if abs(gtd_new) <= -c2 * gtd:
                return f_new, g_new, t, evals
            if gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = list(bracket[low])
            bracket[low] = [t, f_new, g_new, gtd_new]
        low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
    return bracket[low][1], bracket[low][2], bracket[low][0], evals


Closure = Callable[[Module], "tuple[float, GradientsParams]"]


class LBFGS:
    """Burn's L-BFGS optimizer (see the module docstring); built by ``LBFGSConfig.init()``."""

    def __init__(self, config: LBFGSConfig) -> None:
        if config.max_eval is None:
            raise ValueError("LBFGS takes a config whose max_eval is set: build it with "
                             "LBFGSConfig(...).init()")
        self.config = config
        self.max_eval: int = config.max_eval
        self.history_s: list[torch.Tensor] = []
        self.history_y: list[torch.Tensor] = []
        self.d: torch.Tensor | None = None
        self.t: float | None = None
        self.prev_flat_grad: torch.Tensor | None = None
        self.prev_loss: float | None = None
        self.g_iter = 0

    def _direction(self, flat_grad: torch.Tensor) -> torch.Tensor:
        """``-H g`` by the two-loop recursion over the history."""
        q = -flat_grad
        pairs = list(zip(self.history_s, self.history_y))
        if not pairs:
            return q
        rhos = [1.0 / y.dot(s) for s, y in pairs]
        alphas: list[torch.Tensor] = []  # newest pair first, then put in the pairs' order
        for (s, y), rho in zip(reversed(pairs), reversed(rhos)):
            alpha = rho * s.dot(q)
            q = q - y * alpha
            alphas.append(alpha)
        alphas.reverse()
        s, y = pairs[-1]
        r = q * (y.dot(s) / y.dot(y))
        for (s, y), rho, alpha in zip(pairs, rhos, alphas):
            r = r + s * (alpha - rho * y.dot(r))
        return r

    def step(self, lr: float, module: Module, closure: Closure) -> tuple[Module, float]:
        """Runs up to ``max_iter`` iterations; returns ``(module, last loss)``. ``closure`` as
        in the module docstring; TypeError when it does not return ``(number, GradientsParams)``."""
        cfg = self.config
        params = _float_params(module)
        dtype = params[0].val().to_torch().dtype if params else torch.float32

        def evaluate(m: Module) -> tuple[float, torch.Tensor]:
            result = closure(m)
            if not (isinstance(result, tuple) and len(result) == 2
                    and isinstance(result[1], GradientsParams)):
                raise TypeError("LBFGS.step: the closure must return (loss, GradientsParams)")
            return float(result[0]), _flat_grad(params, result[1], dtype)

        def with_flat(flat: torch.Tensor) -> Module:
            return module.map(_FromFlat(flat))

        loss, flat_grad = evaluate(module)
        evals = 1
        x = torch.cat([p.val().to_torch().reshape(-1).to(dtype) for p in params])
        if float(flat_grad.abs().max()) <= cfg.tolerance_grad:
            return module, loss
        d = self.d if self.d is not None else -flat_grad
        t = self.t if self.t is not None else lr
        prev_flat_grad = self.prev_flat_grad
        n_iter = 0
        while n_iter < cfg.max_iter:
            n_iter += 1
            self.g_iter += 1
            if self.g_iter == 1:
                d = -flat_grad
                self.history_s, self.history_y = [], []
            else:
                if prev_flat_grad is not None:
                    y = flat_grad - prev_flat_grad
                    s = d * t
                    if float(y.dot(s)) > 1e-10:
                        if len(self.history_s) >= cfg.history_size:
                            self.history_s.pop(0)
                            self.history_y.pop(0)
                        self.history_s.append(s)
                        self.history_y.append(y)
                d = self._direction(flat_grad)
            prev_flat_grad = flat_grad
            prev_loss = loss
            t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr if self.g_iter == 1 else lr
            gtd = float(flat_grad.dot(d))
            if gtd > -cfg.tolerance_change:
                break
            if cfg.line_search_fn is LineSearchFn.STRONG_WOLFE:
                def obj(x0, step, direction):
                    return evaluate(with_flat(x0 + direction * step))
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    obj, x, t, d, loss, flat_grad, gtd, 1e-4, 0.9, cfg.tolerance_change,
                    self.max_eval - evals)
                x = x + d * t
                module = with_flat(x)
            else:
                x = x + d * t
                module = with_flat(x)
                loss, flat_grad = evaluate(module)
                ls_evals = 1
            evals += ls_evals
            if evals >= self.max_eval:
                break
            if float(flat_grad.abs().max()) <= cfg.tolerance_grad:
                break
            if float((d * t).abs().max()) <= cfg.tolerance_change:
                break
            if abs(loss - prev_loss) < cfg.tolerance_change:
                break
        self.d, self.t, self.prev_flat_grad, self.prev_loss = d, t, prev_flat_grad, loss
        return module, loss
