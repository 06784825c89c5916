"""Where torch spellings meet burn_torch values, the error names the burn_torch call to write."""
import re

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, activation, nn, torch_spellings
from burn_torch.optim import GradientsParams

CPU = Device.cpu()


@pytest.fixture
def x() -> Tensor:
    return Tensor.ones([2, 3], CPU)


def test_torch_cat_of_burn_tensors_names_tensor_cat(x):
    with pytest.raises(TypeError, match=re.escape("torch.cat() got a burn_torch Tensor, which is not a "
                                                  "torch.Tensor: write Tensor.cat([x, y], dim)")):
        torch.cat([x, x], 1)


def test_functional_softmax_names_the_activation_function(x):
    with pytest.raises(TypeError, match=re.escape("write activation.softmax(x, ...)")):
        F.softmax(x, 1)


def test_a_torch_function_named_like_a_tensor_method_names_the_method(x):
    with pytest.raises(TypeError, match=re.escape("torch.exp() got a burn_torch Tensor") + ".*write x.exp"):
        torch.exp(x)


def test_torch_autograd_grad_names_backward_and_grad():
    leaf = Tensor.ones([2], CPU.autodiff()).require_grad()
    with pytest.raises(TypeError, match=re.escape("torch.autograd.grad() got a burn_torch Tensor")
                       + ".*loss.backward\\(\\); then x.grad\\(grads\\)"):
        torch.autograd.grad((leaf * leaf).sum(), [leaf])


def test_a_torch_tensor_method_given_a_burn_tensor_says_how_to_convert(x):
    with pytest.raises(TypeError, match="torch.Tensor.add\\(\\) got a burn_torch Tensor.*from_torch\\(t, device\\)"):
        torch.ones(2, 3).add(x)


def test_a_torch_operator_with_a_burn_operand_falls_back_to_the_burn_operator(x):
    # torch turns the TypeError of __torch_function__ into NotImplemented: Tensor.__radd__ answers
    with pytest.raises(TypeError, match="cannot combine a burn_torch Tensor with a torch.Tensor"):
        torch.ones(2, 3) + x


@pytest.mark.parametrize("name, spelling", [
    ("view", "x.reshape(dims)"), ("item", "x.into_scalar()"), ("size", "x.dims()"),
    ("softmax", "activation.softmax(x, dim)"), ("pow", "x.powf_scalar(e)"), ("numel", "x.num_elements()"),
])
def test_a_torch_only_method_names_the_burn_method(x, name, spelling):
    with pytest.raises(AttributeError, match=re.escape(f"'Tensor' object has no attribute '{name}': write {spelling}")):
        getattr(x, name)


def test_an_in_place_method_says_tensors_are_values(x):
    with pytest.raises(AttributeError, match=re.escape("'Tensor' object has no attribute 'mul_': burn_torch "
                                                       "tensors are immutable values: write x = x.mul(...)")):
        x.mul_(2.0)


def test_setting_a_torch_only_attribute_names_the_burn_call(x):
    with pytest.raises(AttributeError, match="no attribute 'requires_grad': write x.is_require_grad\\(\\)"):
        x.requires_grad = True


def test_torch_only_names_stay_missing_for_hasattr_getattr_and_dir(x):
    assert not hasattr(x, "view") and not hasattr(Tensor, "view")
    assert getattr(x, "item", None) is None
    assert "view" not in dir(x) and "reshape" in dir(x)


def test_an_unknown_attribute_keeps_python_s_message(x):
    with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'no_such_thing'$"):
        x.no_such_thing


def test_item_assignment_names_slice_assign(x):
    with pytest.raises(TypeError, match="does not support item assignment: tensors are values; write "
                                        "x = x.slice_assign\\(ranges, values\\)"):
        x[0] = 1.0


def test_every_burn_spelling_named_in_the_tables_exists():
    spellings = [*torch_spellings.TENSOR_METHODS.values(), *torch_spellings.TORCH_FUNCTIONS.values()]
    named = {(owner, name) for text in spellings
             for owner, name in re.findall(r"\b(x|Tensor|activation)\.(\w+)\(", text)}
    missing = [f"{owner}.{name}" for owner, name in sorted(named)
               if not hasattr(activation if owner == "activation" else Tensor, name)]
    assert named and missing == []


def test_calling_a_module_says_to_call_forward(x):
    lin = nn.LinearConfig(3, 2).init(CPU)
    with pytest.raises(TypeError, match="'Linear' object is not callable: .*write linear.forward\\(...\\)"):
        lin(x)


def test_registering_a_torch_gradient_says_it_is_a_torch_tensor():
    lin = nn.LinearConfig(3, 2).init(CPU)
    with pytest.raises(TypeError, match="must be a Tensor, got a torch.Tensor \\(wrap it with "
                                        "burn_torch.compat.from_torch"):
        GradientsParams().register(lin.weight.id, torch.ones(3, 2))


def test_a_torch_tensor_among_burn_tensors_is_named_as_torch(x):
    with pytest.raises(TypeError, match="cat: expected Tensors, got a torch.Tensor"):
        Tensor.cat([x, torch.ones(2, 3)], 0)


@pytest.mark.parametrize("make, message", [
    (lambda: nn.Conv2dConfig([1, 8], 3), "kernel_size takes one size per dim .* got the int 3; write \\[3, 3\\]"),
    (lambda: nn.Conv2dConfig([1, 8], [3, 3]).with_stride(2), "stride .* write \\[2, 2\\]"),
    (lambda: nn.MaxPool2dConfig(2), "MaxPool2dConfig: kernel_size .* write \\[2, 2\\]"),
    (lambda: nn.Conv3dConfig([1, 8], 3), "write \\[3, 3, 3\\]"),
    (lambda: nn.Conv2dConfig(3, [3, 3]), "channels is \\[channels_in, channels_out\\]"),
])
def test_an_int_where_a_config_takes_one_size_per_dim_names_the_list(make, message):
    with pytest.raises(TypeError, match=message):
        make()


def test_a_torch_shaped_recurrent_state_names_the_expected_shape():
    gru = nn.GruConfig(3, 4, True).init(CPU)
    with pytest.raises(ValueError, match=re.escape("Gru: state must be [batch, d_hidden] = [2, 4], got [1, 2, 4]")):
        gru.forward(Tensor.ones([2, 5, 3], CPU), Tensor.ones([1, 2, 4], CPU))


def test_a_torch_style_lstm_state_tuple_names_lstm_state():
    lstm = nn.LstmConfig(3, 4, True).init(CPU)
    with pytest.raises(TypeError, match=re.escape("LstmState(cell=c_0[0], hidden=h_0[0])")):
        lstm.forward(Tensor.ones([2, 5, 3], CPU), (Tensor.ones([1, 2, 4], CPU), Tensor.ones([1, 2, 4], CPU)))
