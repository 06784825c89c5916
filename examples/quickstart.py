"""burn_torch quickstart: Burn's autodiff example (the autodiff chapter), in Python.

    let device = Device::wgpu(Default::default()).autodiff();
    let tensor = Tensor::<2>::ones([2, 2], &device).require_grad();
    let output = tensor.clone().powf_scalar(2.0).sum();
    let mut gradients = output.backward();
    let tensor_grad = tensor.grad(&gradients);             // get
    let tensor_grad = tensor.grad_remove(&mut gradients);  // pop

Run it with ./scripts/demo (or .venv/bin/python examples/quickstart.py).
"""
from burn_torch import Device, Tensor

device = Device.cpu().autodiff()          # autodiff is a runtime property of the device
tensor = Tensor.ones([2, 2], device).require_grad()
squared = tensor.clone().powf_scalar(2.0)  # a tracked intermediate
output = squared.sum()
gradients = output.backward()              # returns a container; nothing is written on tensors

tensor_grad = tensor.grad(gradients)       # get: the gradient stays in the container
print(f"backward returned {gradients!r}")

rows = [
    ("tensor (leaf)", tensor),
    ("squared (powf_scalar)", squared),
    ("output (sum)", output),
    ("tensor.grad(gradients)", tensor_grad),
    ("tensor.detach()", tensor.detach()),
    ("tensor.without_autodiff()", tensor.without_autodiff()),
]
header = f"{'tensor':<27} {'is_autodiff':>11} {'is_tracked':>10} {'is_require_grad':>15}  strategy"
print(header)
print("-" * len(header))
for name, t in rows:
    strategy = t.gradient_checkpointing_strategy()
    print(f"{name:<27} {t.is_autodiff()!s:>11} {t.is_tracked()!s:>10} {t.is_require_grad()!s:>15}"
          f"  {strategy.name if strategy is not None else None}")
    # Burn's invariants hold for every float tensor
    assert (not t.is_require_grad()) or t.is_tracked()
    assert (not t.is_tracked()) or t.is_autodiff()
    assert (strategy is not None) == t.is_autodiff()

print()
print("gradient of sum(tensor ** 2) with respect to tensor:")
print(tensor_grad.to_data().to_list())

tensor_grad = tensor.grad_remove(gradients)  # pop: the entry leaves the container
print(f"after grad_remove: {len(gradients)} gradients left, tensor.grad -> {tensor.grad(gradients)}")

assert tensor_grad.all_close(tensor.without_autodiff() * 2.0), "gradient must be 2 * tensor"
print("OK: the gradient equals 2 * tensor")
