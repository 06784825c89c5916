"""Devices: a torch device plus the autodiff context that tensors created on it inherit."""
from __future__ import annotations

import threading

import torch

from .autodiff.strategy import GradientCheckpointingStrategy
from .errors import AutodiffDisabledError, DeviceUnavailableError


class Device:
    """An immutable device value: torch storage/kernels plus an optional autodiff context.

    The context is ``None`` (autodiff off) or the checkpointing strategy tensors created on this
    device carry. Two devices are equal when their torch devices and contexts are equal.
    """

    __slots__ = ("_torch", "_ctx")

    def __init__(self, torch_device: "torch.device | str", ctx: GradientCheckpointingStrategy | None = None):
        dev = torch.device(torch_device)
        if dev.type == "cuda" and dev.index is None:
            dev = torch.device("cuda", 0)
        if dev.type in ("cuda", "mps"):
            _check_available(dev)
        self._torch = dev
        self._ctx = ctx

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def cpu(cls) -> "Device":
        """The CPU, autodiff off."""
        return cls(_CPU)

    @classmethod
    def cuda(cls, index: int = 0) -> "Device":
        """CUDA device ``index``, autodiff off. Raises DeviceUnavailableError when this torch has
        no CUDA (a CPU-only build, no driver) or no device ``index``."""
        return cls(torch.device("cuda", index))

    @classmethod
    def mps(cls) -> "Device":
        """The Apple GPU, autodiff off. Raises DeviceUnavailableError when MPS is not available."""
        return cls(torch.device("mps"))

    @classmethod
    def default(cls) -> "Device":
        """CUDA if available, else MPS if available, else the CPU; autodiff off."""
        if torch.cuda.is_available():
            return cls.cuda(0)
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return cls.mps()
        return cls.cpu()

    @classmethod
    def of(cls, torch_device: torch.device, ctx: GradientCheckpointingStrategy | None) -> "Device":
        """Internal fast constructor from an already-normalised torch device."""
        d = object.__new__(cls)
        d._torch = torch_device
        d._ctx = ctx
        return d

    # -- autodiff context ---------------------------------------------------------------------
    def autodiff(self) -> "Device":
        """Returns this device with autodiff on.

        Idempotent: an autodiff device is returned unchanged, keeping its strategy; otherwise the
        strategy is ``DISABLED``.
        """
        if self._ctx is not None:
            return self
        return Device.of(self._torch, GradientCheckpointingStrategy.DISABLED)

    def without_autodiff(self) -> "Device":
        """Returns this device with autodiff off. Idempotent."""
        if self._ctx is None:
            return self
        return Device.of(self._torch, None)

    def inner(self) -> "Device":
        """Same as [`without_autodiff`][burn_torch.device.Device.without_autodiff] (Burn's
        backend-decorator name)."""
        return self.without_autodiff()

    def is_autodiff(self) -> bool:
        """Whether tensors created on this device carry an autodiff association."""
        return self._ctx is not None

    def gradient_checkpointing(self) -> "Device":
        """Returns this autodiff device with the ``BALANCED`` strategy.

        Raises AutodiffDisabledError when autodiff is off: call ``device.autodiff()`` first.
        """
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Device.gradient_checkpointing requires autodiff; call Device.autodiff() first"
            )
        return Device.of(self._torch, GradientCheckpointingStrategy.BALANCED)

    def gradient_checkpointing_strategy(self) -> GradientCheckpointingStrategy:
        """The strategy of this autodiff device; raises AutodiffDisabledError when autodiff is off."""
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Device.gradient_checkpointing_strategy requires autodiff; call Device.autodiff() first"
            )
        return self._ctx

    # -- torch side ---------------------------------------------------------------------------
    @property
    def torch(self) -> torch.device:
        """The torch device used for storage and kernels."""
        return self._torch

    def seed(self, seed: int) -> None:
        """Seeds the random generator shared by every Device on this torch device."""
        generator(self._torch).manual_seed(int(seed))

    # -- value semantics ----------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and self._torch == other._torch and self._ctx is other._ctx

    def __hash__(self) -> int:
        return hash((self._torch, self._ctx))

    def __repr__(self) -> str:
        if self._ctx is None:
            return f"Device({self._torch})"
        return f"Device({self._torch}, autodiff, {self._ctx.name})"

    def __reduce__(self):
        return (Device, (str(self._torch), self._ctx))


_CPU = torch.device("cpu")
_generators: dict[torch.device, torch.Generator] = {}
_generators_lock = threading.Lock()


def generator(torch_device: torch.device) -> torch.Generator:
    """Returns the random generator of a torch device, created (randomly seeded) on first use."""
    gen = _generators.get(torch_device)
    if gen is None:
        with _generators_lock:
            gen = _generators.get(torch_device)
            if gen is None:
                gen = torch.Generator(device=torch_device)
                gen.seed()
                _generators[torch_device] = gen
    return gen


def _check_available(dev: torch.device) -> None:
    """Raises DeviceUnavailableError unless torch can use ``dev`` (a CUDA or MPS device)."""
    if dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise DeviceUnavailableError(
                "Device.mps(): MPS is not available (it needs Apple silicon and a torch built with "
                "MPS); use Device.cpu() or Device.default()")
        return
    if not torch.cuda.is_available():
        build = ("a CPU-only build" if torch.version.cuda is None
                 else f"built for CUDA {torch.version.cuda}, but no usable GPU or driver")
        raise DeviceUnavailableError(
            f"Device.cuda({dev.index}): this torch {torch.__version__} has no CUDA ({build}); use "
            f"Device.cpu(), or Device.default() for CUDA when there is one")
    count = torch.cuda.device_count()
    if dev.index >= count:
        raise DeviceUnavailableError(f"Device.cuda({dev.index}): there are {count} CUDA devices "
                                     f"(indices 0..{count - 1})")
