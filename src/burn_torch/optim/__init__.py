"""Burn's optimizers (``burn::optim``): gradients keyed by ParamId, accumulation, update rules
with Burn's builders, gradient clipping and learning-rate schedulers.

A training step::

    grads = optim.GradientsParams.from_grads(loss.backward(), model)
    model = optimizer.step(lr, model, grads)     # returns the updated module; no zero_grad
"""
from . import lr_scheduler
from .adagrad import AdaGrad, AdaGradConfig
from .adam import Adam, AdamConfig, AdamW, AdamWConfig
from .adan import Adan, AdanConfig
from .base import ModuleOptimizer, OptimizerRecord, SimpleOptimizer, WeightDecayConfig
from .clipping import GradientClipping, GradientClippingConfig
from .grad_accum import GradientsAccumulator
from .grads import GradientsParams
from .lbfgs import LBFGS, LBFGSConfig, LineSearchFn
from .lr_scheduler import (ComposedLrScheduler, ComposedLrSchedulerConfig, ConstantLr,
                           CosineAnnealingLrSchedulerConfig, ExponentialLrSchedulerConfig,
                           LinearLrSchedulerConfig, LrScheduler, NoamLrSchedulerConfig,
                           SchedulerReduction, SequentialLrScheduler, SequentialLrSchedulerConfig,
                           StepLrSchedulerConfig)
from .muon import AdjustLrFn, Muon, MuonConfig
from .rmsprop import RmsProp, RmsPropConfig
from .sgd import MomentumConfig, Sgd, SgdConfig

__all__ = [
    "GradientsParams", "GradientsAccumulator", "GradientClipping", "GradientClippingConfig",
    "ModuleOptimizer", "OptimizerRecord", "SimpleOptimizer", "WeightDecayConfig",
    "Sgd", "SgdConfig", "MomentumConfig", "Adam", "AdamConfig", "AdamW", "AdamWConfig",
    "RmsProp", "RmsPropConfig", "AdaGrad", "AdaGradConfig", "lr_scheduler", "LrScheduler",
    "ConstantLr", "LinearLrSchedulerConfig", "CosineAnnealingLrSchedulerConfig",
    "StepLrSchedulerConfig", "ExponentialLrSchedulerConfig", "NoamLrSchedulerConfig",
    "Adan", "AdanConfig", "Muon", "MuonConfig", "AdjustLrFn", "LBFGS", "LBFGSConfig",
    "LineSearchFn", "ComposedLrScheduler", "ComposedLrSchedulerConfig", "SchedulerReduction",
    "SequentialLrScheduler", "SequentialLrSchedulerConfig",
]
