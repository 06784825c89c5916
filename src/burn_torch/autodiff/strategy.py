"""Burn's gradient checkpointing strategies: the autodiff context a tensor carries."""
import enum


class GradientCheckpointingStrategy(enum.Enum):
    """Burn's checkpointing strategies.

    ``DISABLED`` keeps every output a backward rule needs. ``BALANCED`` recomputes the outputs of
    memory-bound operations during backward instead of keeping them.
    """

    DISABLED = "disabled"
    BALANCED = "balanced"

    # members are singletons: hashing by identity (in C) keeps keys that hold a strategy (the
    # captured-step key holds one per input tensor) cheap; Enum's own hash runs Python code
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"GradientCheckpointingStrategy.{self.name}"
