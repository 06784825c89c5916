"""Replay through a CUDA graph: the plan's kernels captured once into ``torch.cuda.CUDAGraph``.

Used when every input storage of a plan is on one CUDA device. The graph reads fixed input
buffers: a call copies its inputs into them, replays the graph and returns copies of the
outputs (the graph's own output buffers are overwritten by the next replay). A plan whose
kernels cannot be graph-captured (a host synchronisation, an unsupported kernel) keeps the
plain replay; the reason is kept in ``CudaGraphRunner.failed``.
"""
from __future__ import annotations

import torch


def all_on_one_cuda_device(tensors) -> bool:
    """True when there is at least one input and every one is on the same CUDA device."""
    if not tensors:
        return False
    dev = tensors[0].device
    return dev.type == "cuda" and all(t.device == dev for t in tensors)


class CudaGraphRunner:
    """``runner(tensors)`` → the plan's output tensors, computed by one graph replay."""

    def __init__(self, kernels, tensors) -> None:
        self.static_in = [t.clone() for t in tensors]
        side = torch.cuda.Stream(device=tensors[0].device)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):                       # warm-up (allocator, lazy init)
                kernels(*self.static_in)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_out = kernels(*self.static_in)

    def __call__(self, tensors):
        for buf, t in zip(self.static_in, tensors):
            buf.copy_(t)
        self.graph.replay()
        return tuple(o.clone() for o in self.static_out)


def try_graph(kernels, tensors):
    """A runner for ``kernels`` on ``tensors``, or None (with the reason) when it cannot be
    built: returns ``(runner or None, reason or None)``."""
    if not torch.cuda.is_available() or not all_on_one_cuda_device(tensors):
        return None, "inputs are not all on one CUDA device"
    try:
        return CudaGraphRunner(kernels, tensors), None
    except Exception as e:  # capture refused: keep the plain replay
        return None, f"{type(e).__name__}: {e}"
