"""burn_torch: Burn's autodiff semantics on torch storage and kernels.

Start with ``Device.cpu().autodiff()``, ``Tensor.from_data(..., device).require_grad()``,
``grads = loss.backward()`` and ``x.grad(grads)``. See the README for the guide.
"""
from . import activation, linalg, loss, module_ops, signal
from . import autotune, distributed, interop, memory, module, nn, optim
from .autodiff.debug import debug_mode
from .autodiff.gradients import Gradients
from .tensor_data import TensorData
from .device import Device, GradientCheckpointingStrategy
from .distribution import Distribution
from .distributed import DistributedError
from .dtype import Bool, DType, Float, Int, Kind
from .errors import (AutodiffDisabledError, AutodiffError, DeviceUnavailableError,
                     GradientAutodiffError, GraphConsumedError,
                     NonLeafRequireGradError, NotTrackedError, StrategyMismatchError,
                     UnsupportedAutodiffFeatureError)
from .ops.index import IndexingUpdateOp
from .quantization import QuantizationParameters, QuantScheme, QuantizedTensor
from .tensor_shape import Shape
from .methods.rearrange import PadMode
from .tensor import Tensor

__all__ = [
    "Tensor", "Gradients", "Device", "GradientCheckpointingStrategy", "Distribution", "DType",
    "Float", "Int", "Bool", "Kind", "TensorData", "Shape", "QuantScheme", "QuantizedTensor", "QuantizationParameters", "PadMode",
    "IndexingUpdateOp", "debug_mode",
    "activation", "autotune", "distributed", "interop", "linalg", "loss", "memory", "module", "module_ops",
    "nn", "optim", "signal",
    "AutodiffError", "AutodiffDisabledError", "NotTrackedError", "GraphConsumedError",
    "NonLeafRequireGradError", "StrategyMismatchError", "GradientAutodiffError",
    "UnsupportedAutodiffFeatureError", "DistributedError", "DeviceUnavailableError",
]
__version__ = "0.1.0"
