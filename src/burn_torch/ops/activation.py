"""Activation functions, with torch's own backward kernels as rules."""
import torch

from .table import MEMORY, defop, save_input, save_output

aten = torch.ops.aten
_THRESHOLD_BACKWARD = aten.threshold_backward.default
_SIGMOID_BACKWARD = aten.sigmoid_backward.default
_GELU_BACKWARD = aten.gelu_backward.default
_softmax_backward = torch._softmax_backward_data
_log_softmax_backward = torch._log_softmax_backward_data

RELU = defop("relu", torch.relu, lambda g, n: (_THRESHOLD_BACKWARD(g, n.saved, 0),), MEMORY, save_output)
SIGMOID = defop("sigmoid", torch.sigmoid, lambda g, n: (_SIGMOID_BACKWARD(g, n.saved),), MEMORY,
                save_output)
GELU = defop("gelu", torch.nn.functional.gelu,
             lambda g, n: (_GELU_BACKWARD(g, n.saved, approximate="none"),), MEMORY, save_input)
SOFTMAX = defop("softmax", torch.softmax,
                lambda g, n: (_softmax_backward(g, n.saved, n.attrs[0], n.saved.dtype),), MEMORY,
                save_output)
LOG_SOFTMAX = defop("log_softmax", torch.log_softmax,
                    lambda g, n: (_log_softmax_backward(g, n.saved, n.attrs[0], n.saved.dtype),),
                    MEMORY, save_output)
