"""Devices shared by the older test modules.

The torch-autograd oracle that lived here is now ``burn_torch.testing`` (``assert_grads_match_torch``,
``check_grads_numerically``, ``Const``, ``covers``, ``strategies``); write new tests with it.
"""
from burn_torch import Device

CPU = Device.cpu()
AD = CPU.autodiff()
