"""burn_torch: Burn's autodiff semantics on torch storage and kernels.

Start with ``Device.cpu().autodiff()``, ``Tensor.from_data(..., device).require_grad()``,
``grads = loss.backward()`` and ``x.grad(grads)``. See API.md for the contract.
"""
from . import activation, distributed, loss, memory, module, module_ops, nn, optim, signal
from .autodiff.gradients import Gradients
from .data import TensorData
from .device import Device, GradientCheckpointingStrategy
from .distribution import Distribution
from .distributed import DistributedError
from .dtype import Bool, DType, Float, Int, Kind
from .errors import (AutodiffDisabledError, AutodiffError, GradientAutodiffError, GraphConsumedError,
                     NonLeafRequireGradError, NotTrackedError, StrategyMismatchError,
                     UnsupportedAutodiffFeatureError)
from .ops.index import IndexingUpdateOp
from .quantization import QuantScheme, QuantizedTensor
from .shape import Shape
from .tensor import Tensor

__all__ = [
    "Tensor", "Gradients", "Device", "GradientCheckpointingStrategy", "Distribution", "DType",
    "Float", "Int", "Bool", "Kind", "TensorData", "Shape", "QuantScheme", "QuantizedTensor",
    "IndexingUpdateOp",
    "activation", "distributed", "loss", "memory", "module", "module_ops", "nn", "optim", "signal",
    "AutodiffError", "AutodiffDisabledError", "NotTrackedError", "GraphConsumedError",
    "NonLeafRequireGradError", "StrategyMismatchError", "GradientAutodiffError",
    "UnsupportedAutodiffFeatureError", "DistributedError",
]
__version__ = "0.1.0"
