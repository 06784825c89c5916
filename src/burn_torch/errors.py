"""Burn's panics as Python exceptions.

Every violated autodiff precondition raises a subclass of
[`AutodiffError`][burn_torch.errors.AutodiffError]. Each is raised before any graph step is consumed
and before any container or tensor is mutated, and its message says what to call instead.
"""


class AutodiffError(RuntimeError):
    """Base class of every autodiff precondition violation (a Burn panic)."""


class AutodiffDisabledError(AutodiffError):
    """The operation needs an autodiff association that the tensor or device does not have."""


class NotTrackedError(AutodiffError):
    """``backward()`` was called on a tensor that does not participate in a recorded graph."""


class GraphConsumedError(AutodiffError):
    """A backward pass would run through a step an earlier backward already consumed."""


class NonLeafRequireGradError(AutodiffError):
    """``require_grad()`` on a tracked intermediate: retaining its gradient is unsupported."""


class StrategyMismatchError(AutodiffError):
    """Two autodiff operands of one operation carry different checkpointing strategies."""


class GradientAutodiffError(AutodiffError):
    """A gradient handed to ``grad_replace`` carries an autodiff association."""


class UnsupportedAutodiffFeatureError(AutodiffError):
    """A PyTorch autodiff feature Burn does not have (``retain_graph``, an external seed, ...)."""


class DistributedError(AutodiffError):
    """A distributed-training precondition failed: a marked intermediate, a parameter on another
    backend than the loss, no process group, ranks that disagree, or a rank that failed."""


class DeviceUnavailableError(RuntimeError):
    """A device was asked for that this torch cannot use: CUDA on a torch without CUDA (or no
    such device index), MPS off Apple silicon. Raised when the Device is created."""
