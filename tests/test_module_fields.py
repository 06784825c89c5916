"""``module_fields``: a module's fields declared once, as annotations, make its constructor."""
import pytest

from burn_torch import Device, Tensor, nn
from burn_torch.module import Module, Param, module_fields


@module_fields
class Scale(Module):
    weight: Param
    factor: float = 2.0

    def forward(self, x: Tensor) -> Tensor:
        return x * self.weight.val() * self.factor


def _param() -> Param:
    return nn.Initializer.ones().init([3], Device.cpu())


def test_the_constructor_takes_the_fields_in_order_positionally_or_by_keyword():
    p = _param()
    by_position, by_keyword = Scale(p, 3.0), Scale(factor=3.0, weight=p)
    assert (by_position.weight, by_position.factor) == (p, 3.0)
    assert (by_keyword.weight, by_keyword.factor) == (p, 3.0)


def test_a_field_default_applies_when_the_argument_is_left_out():
    assert Scale(_param()).factor == 2.0


def test_a_missing_field_without_default_is_a_type_error():
    with pytest.raises(TypeError):
        Scale()


def test_fields_are_module_children_found_by_traversal():
    m = Scale(_param())
    assert [name for name, _ in m.named_params()] == ["weight"]


def test_equality_stays_identity_and_repr_stays_the_modules():
    p = _param()
    a, b = Scale(p), Scale(p)
    assert a != b and a == a and len({a, b}) == 2
    assert repr(a).startswith("Scale {params: 3")


def test_a_field_without_default_after_one_with_a_default_is_refused_at_class_creation():
    with pytest.raises(TypeError):
        @module_fields
        class Bad(Module):
            factor: float = 1.0
            weight: Param


def test_burn_layers_declare_their_fields_with_burn_names():
    layer = nn.LeakyReluConfig(0.2).init()
    assert layer.negative_slope == 0.2 and nn.LeakyRelu(negative_slope=0.2).negative_slope == 0.2
