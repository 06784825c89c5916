import torch


def save_image(tensor, *args, **kwargs):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"save_image expects a torch tensor, got {type(tensor).__name__}")
