"""A stand-in for torchvision when running corpus programs on tiny random data (tests only)."""
from . import datasets, transforms, utils  # noqa: F401
