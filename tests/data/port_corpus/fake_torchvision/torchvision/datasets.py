import torch
from torch.utils.data import TensorDataset


def _fake(shape, classes, n=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.rand(n, *shape, generator=g), torch.randint(0, classes, (n,), generator=g))


def MNIST(root=None, train=True, transform=None, download=False):
    return _fake((1, 28, 28), 10, seed=int(train))


def CIFAR10(root=None, train=True, transform=None, download=False):
    return _fake((3, 32, 32), 10, seed=int(train))
