"""Burn's losses (``burn::nn::loss``), one file per loss as Burn's. Each is a config with
Burn's fields and defaults (``XxxConfig(...).init()``, no device: they hold no tensors; ``MseLoss``
and ``SoftMarginLoss`` are built directly) and a module whose ``forward(..., reduction)`` reduces
to shape ``[1]`` and whose ``forward_no_reduction`` keeps the per-element (or per-sample) values.
Each is Burn's composition of burn_torch ops, so gradients follow Burn's rules; ``CTCLoss`` is one
op (torch's CTC kernels).

``Reduction.AUTO`` is the mean, except for ``KLDivLoss`` (the batch mean, Burn's default there);
``Reduction.BATCH_MEAN`` is accepted by ``KLDivLoss`` only (ValueError elsewhere, as Burn panics).
"""
from .binary_cross_entropy import BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig
from .cosine_embedding import CosineEmbeddingLoss, CosineEmbeddingLossConfig
from .cross_entropy import CrossEntropyLoss, CrossEntropyLossConfig
from .ctc import CTCLoss, CTCLossConfig
from .gaussian_nll import GaussianNLLLoss, GaussianNLLLossConfig
from .hinge_embedding import HingeEmbeddingLoss, HingeEmbeddingLossConfig
from .huber import HuberLoss, HuberLossConfig
from .kldiv import KLDivLoss, KLDivLossConfig
from .lp_loss import LpLoss, LpLossConfig
from .margin_ranking import MarginRankingLoss, MarginRankingLossConfig
from .mse import MseLoss
from .multi_margin import MultiMarginLoss, MultiMarginLossConfig
from .poisson import PoissonNllLoss, PoissonNllLossConfig
from .reduction import Reduction
from .rnnt import RNNTLoss, RNNTLossConfig
from .smooth_l1 import SmoothL1Loss, SmoothL1LossConfig
from .soft_margin import SoftMarginLoss
from .triplet_margin import TripletMarginLoss, TripletMarginLossConfig

__all__ = [
    "BinaryCrossEntropyLoss", "BinaryCrossEntropyLossConfig", "CosineEmbeddingLoss",
    "CosineEmbeddingLossConfig", "CrossEntropyLoss", "CrossEntropyLossConfig", "CTCLoss",
    "CTCLossConfig", "GaussianNLLLoss", "GaussianNLLLossConfig", "HingeEmbeddingLoss",
    "HingeEmbeddingLossConfig", "HuberLoss", "HuberLossConfig", "KLDivLoss", "KLDivLossConfig",
    "LpLoss", "LpLossConfig", "MarginRankingLoss", "MarginRankingLossConfig", "MseLoss",
    "MultiMarginLoss", "MultiMarginLossConfig", "PoissonNllLoss", "PoissonNllLossConfig",
    "Reduction", "RNNTLoss", "RNNTLossConfig", "SmoothL1Loss", "SmoothL1LossConfig",
    "SoftMarginLoss", "TripletMarginLoss", "TripletMarginLossConfig",
]
