"""Burn's autodiff rules (seeds 000 and 001, the README and docs), one behaviour per test.

Values are float64 and small so every gradient is asserted exactly.
"""
import pickle
import threading

import numpy as np
import pytest

import burn_torch
from burn_torch import (AutodiffDisabledError, AutodiffError, Bool, DType, Float, GradientAutodiffError,
                        Gradients, GraphConsumedError, Int, NonLeafRequireGradError, NotTrackedError,
                        StrategyMismatchError, Tensor, UnsupportedAutodiffFeatureError)
from helpers import AD, BALANCED, CK, CPU, DISABLED


def f64(values, device=AD):
    return Tensor.from_data(np.array(values, dtype=np.float64), device)


def leaf(values, device=AD):
    return f64(values, device).require_grad()


def vals(t):
    return t.to_data().to_list()


def flags(t):
    return (t.is_autodiff(), t.is_tracked(), t.is_require_grad())


# =============================================================================== require_grad ====
def test_require_grad_without_autodiff_raises_autodiff_disabled_naming_autodiff():
    with pytest.raises(AutodiffDisabledError, match=r"autodiff\(\)"):
        f64([1.0], CPU).require_grad()


def test_require_grad_does_not_enable_autodiff():
    x = f64([1.0], CPU)
    with pytest.raises(AutodiffDisabledError):
        x.require_grad()
    assert flags(x) == (False, False, False)
    assert x.gradient_checkpointing_strategy() is None


def test_require_grad_on_an_autodiff_float_makes_a_tracked_leaf_that_retains_its_gradient():
    x = f64([1.0, 2.0]).require_grad()
    assert flags(x) == (True, True, True)


def test_require_grad_keeps_values_and_strategy():
    x = f64([1.5, 2.5], CK).require_grad()
    assert vals(x) == [1.5, 2.5]
    assert x.gradient_checkpointing_strategy() is BALANCED


def test_require_grad_returns_a_new_value_and_leaves_the_original_untracked():
    c = f64([1.0])
    x = c.require_grad()
    assert x is not c
    assert flags(c) == (True, False, False)


def test_require_grad_on_a_tracked_non_leaf_raises_non_leaf_error():
    y = leaf([1.0]) * 2.0
    with pytest.raises(NonLeafRequireGradError, match=r"detach\(\)\.require_grad\(\)"):
        y.require_grad()


def test_set_require_grad_true_on_a_tracked_non_leaf_raises_non_leaf_error():
    y = leaf([1.0]).exp()
    with pytest.raises(NonLeafRequireGradError):
        y.set_require_grad(True)


def test_require_grad_on_an_existing_leaf_returns_it_unchanged():
    x = leaf([3.0])
    assert x.require_grad() is x


def test_require_grad_on_an_existing_leaf_keeps_the_same_gradient_slot():
    x = leaf([3.0])
    again = x.require_grad()
    grads = (again * 4.0).sum().backward()
    assert vals(x.grad(grads)) == [4.0]


def test_set_require_grad_true_is_require_grad():
    x = f64([1.0]).set_require_grad(True)
    assert flags(x) == (True, True, True)
    with pytest.raises(AutodiffDisabledError):
        f64([1.0], CPU).set_require_grad(True)


def test_require_grad_on_an_int_tensor_raises_type_error():
    # Burn's require_grad exists only on float tensors; here it is a TypeError.
    with pytest.raises(TypeError, match="Float"):
        Tensor.from_data([1, 2], AD).require_grad()


# ===================================================================== set_require_grad(False) ====
def test_set_require_grad_false_on_a_leaf_gives_an_untracked_autodiff_tensor():
    x = leaf([1.0], CK)
    c = x.set_require_grad(False)
    assert flags(c) == (True, False, False)
    assert c.gradient_checkpointing_strategy() is BALANCED
    assert vals(c) == [1.0]


def test_set_require_grad_false_leaves_the_original_leaf_retaining():
    x = leaf([1.0])
    x.set_require_grad(False)
    assert flags(x) == (True, True, True)


def test_set_require_grad_false_on_an_intermediate_cuts_the_connection_upstream():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    z = y.set_require_grad(False)
    assert flags(z) == (True, False, False)
    grads = (z * x).sum().backward()
    # only the direct use of x counts: d(z*x)/dx = z = 3x, not 2*3x
    assert vals(x.grad(grads)) == [3.0, 6.0]


def test_set_require_grad_false_output_alone_cannot_backpropagate():
    z = (leaf([1.0]) * 2.0).set_require_grad(False)
    with pytest.raises(NotTrackedError):
        z.backward()


def test_set_require_grad_false_then_true_gives_a_new_leaf_disconnected_from_upstream():
    x = leaf([2.0])
    y = (x * 5.0).set_require_grad(False).require_grad()
    assert flags(y) == (True, True, True)
    grads = (y * 3.0).sum().backward()
    assert vals(y.grad(grads)) == [3.0]
    assert x.grad(grads) is None


def test_set_require_grad_false_on_a_plain_tensor_is_harmless():
    p = f64([1.0, 2.0], CPU)
    q = p.set_require_grad(False)
    assert flags(q) == (False, False, False)
    assert q.gradient_checkpointing_strategy() is None
    assert vals(q) == [1.0, 2.0]


def test_set_require_grad_false_on_an_untracked_autodiff_tensor_keeps_it_so():
    c = f64([1.0], CK).set_require_grad(False)
    assert flags(c) == (True, False, False)
    assert c.gradient_checkpointing_strategy() is BALANCED


# ====================================================================================== detach ====
def test_detach_keeps_the_autodiff_association_and_strategy():
    y = leaf([1.0], CK) * 2.0
    d = y.detach()
    assert d.is_autodiff() is True
    assert d.gradient_checkpointing_strategy() is BALANCED


def test_detach_keeps_a_leafs_gradient_retention():
    d = leaf([1.0]).detach()
    assert flags(d) == (True, True, True)


def test_detached_leaf_is_a_separate_leaf():
    x = leaf([2.0, 3.0])
    d = x.detach()
    grads = (d * d).sum().backward()
    assert vals(d.grad(grads)) == [4.0, 6.0]
    assert x.grad(grads) is None
    assert len(grads) == 1


def test_original_leaf_gradients_do_not_reach_its_detached_copy():
    x = leaf([2.0])
    d = x.detach()
    grads = (x * 7.0).sum().backward()
    assert vals(x.grad(grads)) == [7.0]
    assert d.grad(grads) is None


def test_detach_of_an_intermediate_is_an_untracked_constant():
    x = leaf([1.0, 2.0])
    d = (x * 3.0).detach()
    assert flags(d) == (True, False, False)
    assert vals(d) == [3.0, 6.0]
    grads = (d * x).sum().backward()
    assert vals(x.grad(grads)) == [3.0, 6.0]


def test_detach_of_an_untracked_tensor_keeps_it_untracked():
    assert flags(f64([1.0]).detach()) == (True, False, False)
    assert flags(f64([1.0], CPU).detach()) == (False, False, False)


def test_detach_does_not_restore_consumed_steps():
    x = leaf([1.0])
    y = x * 2.0
    y.sum().backward()
    d = y.detach()
    assert d.is_tracked() is False
    with pytest.raises(NotTrackedError):
        d.backward()
    with pytest.raises(GraphConsumedError):
        y.sum().backward()


def test_detached_consumed_intermediate_can_feed_a_fresh_forward_as_a_constant():
    x = leaf([1.0])
    y = x * 2.0
    y.sum().backward()
    grads = (y.detach() * x).sum().backward()
    assert vals(x.grad(grads)) == [2.0]


# ========================================================================= without_autodiff ====
def test_without_autodiff_drops_association_strategy_and_graph():
    x = leaf([1.0], CK)
    p = x.without_autodiff()
    assert flags(p) == (False, False, False)
    assert p.gradient_checkpointing_strategy() is None
    assert vals(p) == [1.0]


def test_without_autodiff_of_an_intermediate_drops_its_graph_reference():
    y = leaf([1.0]) * 2.0
    p = y.without_autodiff()
    assert flags(p) == (False, False, False)
    with pytest.raises(NotTrackedError):
        p.backward()


def test_without_autodiff_does_not_change_the_original():
    x = leaf([1.0])
    x.without_autodiff()
    assert flags(x) == (True, True, True)


def test_without_autodiff_is_idempotent():
    p = f64([1.0], CPU)
    assert p.without_autodiff() is p
    q = leaf([1.0]).without_autodiff()
    assert q.without_autodiff() is q


def test_inner_is_the_same_as_without_autodiff():
    x = leaf([1.0], CK)
    assert flags(x.inner()) == (False, False, False)
    assert x.inner().gradient_checkpointing_strategy() is None
    p = f64([1.0], CPU)
    assert p.inner() is p


def test_without_autodiff_tensor_is_a_constant_when_combined_with_autodiff():
    x = leaf([2.0])
    p = x.without_autodiff()
    grads = (x * p).sum().backward()
    assert vals(x.grad(grads)) == [2.0]  # p is a constant, not a second path to x


def test_without_autodiff_then_autodiff_does_not_restore_the_graph():
    x = leaf([1.0])
    back = x.without_autodiff().autodiff()
    assert flags(back) == (True, False, False)


# ============================================================================ autodiff() ====
def test_autodiff_adds_the_association_with_the_default_strategy():
    t = f64([1.0], CPU).autodiff()
    assert flags(t) == (True, False, False)
    assert t.gradient_checkpointing_strategy() is DISABLED


def test_autodiff_does_not_make_the_tensor_require_gradients():
    assert f64([1.0], CPU).autodiff().is_require_grad() is False


def test_autodiff_is_idempotent_and_keeps_an_existing_strategy():
    t = f64([1.0], CK)
    assert t.autodiff() is t
    assert t.autodiff().gradient_checkpointing_strategy() is BALANCED


def test_autodiff_keeps_an_existing_leaf():
    x = leaf([1.0])
    assert x.autodiff() is x


def test_autodiff_keeps_values_and_does_not_change_the_original():
    p = f64([1.0, 2.0], CPU)
    t = p.autodiff()
    assert vals(t) == [1.0, 2.0]
    assert p.is_autodiff() is False


def test_from_inner_is_the_same_as_autodiff():
    t = Tensor.from_inner(f64([1.0], CPU))
    assert flags(t) == (True, False, False)
    assert t.gradient_checkpointing_strategy() is DISABLED
    c = f64([1.0], CK)
    assert Tensor.from_inner(c) is c


def test_autodiff_then_require_grad_makes_a_leaf():
    x = f64([3.0], CPU).autodiff().require_grad()
    grads = (x * x).sum().backward()
    assert vals(x.grad(grads)) == [6.0]


# ================================================================================= to_device ====
def test_to_device_keeps_the_sources_association_on_a_plain_destination():
    c = f64([1.0], CK)
    moved = c.to_device(CPU)
    assert moved.is_autodiff() is True
    assert moved.gradient_checkpointing_strategy() is BALANCED
    assert moved.device() == CK


def test_to_device_ignores_the_destinations_autodiff():
    p = f64([1.0], CPU)
    moved = p.to_device(CK)
    assert flags(moved) == (False, False, False)
    assert moved.gradient_checkpointing_strategy() is None
    assert moved.device() == CPU


def test_to_device_keeps_the_sources_strategy_over_the_destinations():
    c = f64([1.0], CK)
    moved = c.to_device(AD)
    assert moved.gradient_checkpointing_strategy() is BALANCED
    d = f64([1.0], AD).to_device(CK)
    assert d.gradient_checkpointing_strategy() is DISABLED


def test_to_device_keeps_values():
    assert vals(f64([1.0, 2.0]).to_device(CPU)) == [1.0, 2.0]


def test_to_device_of_a_tracked_tensor_records_a_step_even_to_the_same_device():
    x = leaf([1.0])
    moved = x.to_device(AD)
    assert moved is not x
    assert moved.is_tracked() is True
    assert moved.is_require_grad() is False


def test_to_device_result_cannot_retain_its_own_gradient():
    moved = leaf([1.0]).to_device(CPU)
    with pytest.raises(NonLeafRequireGradError):
        moved.require_grad()


def test_to_device_gradients_flow_back_to_the_source():
    x = leaf([1.0, 2.0])
    moved = x.to_device(CPU)
    grads = (moved * moved).sum().backward()
    assert vals(x.grad(grads)) == [2.0, 4.0]
    assert moved.grad(grads) is None
    assert len(grads) == 1


def test_to_device_of_an_untracked_tensor_stays_untracked():
    assert flags(f64([1.0]).to_device(CPU)) == (True, False, False)


def test_to_device_detach_require_grad_gives_a_new_destination_leaf():
    x = leaf([1.0, 2.0])
    new = x.to_device(CPU).detach().require_grad()
    assert flags(new) == (True, True, True)
    grads = (new * 3.0).sum().backward()
    assert vals(new.grad(grads)) == [3.0, 3.0]
    assert x.grad(grads) is None


def test_transferred_balanced_tensor_cannot_combine_with_a_new_disabled_destination_tensor():
    moved = f64([1.0], CK).to_device(AD)
    other = f64([2.0], AD)
    with pytest.raises(StrategyMismatchError):
        moved + other


def test_transferred_tensor_combines_with_an_operand_created_on_moved_device():
    moved = leaf([1.0], CK).to_device(AD)
    other = f64([2.0], moved.device())
    out = moved * other
    assert out.gradient_checkpointing_strategy() is BALANCED
    assert vals(out) == [2.0]


# ========================================================= autodiff combined with plain tensors ====
def test_autodiff_combined_with_plain_gives_an_autodiff_result():
    x = leaf([2.0])
    p = f64([5.0], CPU)
    out = x * p
    assert flags(out) == (True, True, False)
    out2 = p * x
    assert flags(out2) == (True, True, False)


def test_plain_operand_is_a_constant_for_the_gradient():
    x = leaf([2.0, 3.0])
    p = f64([5.0, 7.0], CPU)
    grads = (p * x + p).sum().backward()
    assert vals(x.grad(grads)) == [5.0, 7.0]
    assert p.grad(grads) is None
    assert len(grads) == 1


def test_original_plain_tensor_remains_unchanged_after_combination():
    x = leaf([2.0])
    p = f64([5.0], CPU)
    (x * p).sum().backward()
    assert flags(p) == (False, False, False)
    assert p.gradient_checkpointing_strategy() is None
    assert vals(p) == [5.0]


def test_plain_operand_takes_the_autodiff_operands_strategy():
    out = f64([1.0], CK) + f64([1.0], CPU)
    assert out.gradient_checkpointing_strategy() is BALANCED
    assert flags(out) == (True, False, False)


def test_untracked_autodiff_combined_with_plain_is_an_untracked_autodiff_result():
    out = f64([1.0]) * f64([2.0], CPU)
    assert flags(out) == (True, False, False)


def test_plain_combined_with_plain_stays_plain():
    out = f64([1.0], CPU) * f64([2.0], CPU)
    assert flags(out) == (False, False, False)


# ======================================================================= strategy mismatches ====
def test_mismatched_strategies_raise_strategy_mismatch_error():
    a = f64([1.0], AD)
    b = f64([1.0], CK)
    with pytest.raises(StrategyMismatchError, match="with_gradient_checkpointing_strategy"):
        a + b


def test_mismatched_strategies_raise_for_tracked_operands_too():
    with pytest.raises(StrategyMismatchError):
        leaf([1.0], AD) * leaf([1.0], CK)


def test_mismatched_strategies_raise_in_cat():
    with pytest.raises(StrategyMismatchError):
        Tensor.cat([f64([1.0], AD), f64([1.0], CK)], 0)


def test_matching_strategies_combine():
    out = f64([1.0], CK) + f64([2.0], CK)
    assert out.gradient_checkpointing_strategy() is BALANCED


def test_with_gradient_checkpointing_strategy_aligns_operands():
    a = leaf([2.0], AD)
    b = f64([3.0], CK).with_gradient_checkpointing_strategy(DISABLED)
    grads = (a * b).sum().backward()
    assert vals(a.grad(grads)) == [3.0]


def test_with_gradient_checkpointing_strategy_sets_the_strategy_and_keeps_the_node():
    x = leaf([2.0], AD)
    xb = x.with_gradient_checkpointing_strategy(BALANCED)
    assert xb.gradient_checkpointing_strategy() is BALANCED
    assert flags(xb) == (True, True, True)
    grads = (xb * 5.0).sum().backward()
    assert vals(x.grad(grads)) == [5.0]


def test_with_gradient_checkpointing_strategy_does_not_change_the_original():
    x = f64([1.0], AD)
    x.with_gradient_checkpointing_strategy(BALANCED)
    assert x.gradient_checkpointing_strategy() is DISABLED


def test_with_gradient_checkpointing_strategy_without_autodiff_raises_naming_autodiff():
    with pytest.raises(AutodiffDisabledError, match="autodiff"):
        f64([1.0], CPU).with_gradient_checkpointing_strategy(BALANCED)


def test_with_gradient_checkpointing_strategy_rejects_a_non_strategy():
    with pytest.raises(TypeError):
        f64([1.0]).with_gradient_checkpointing_strategy("balanced")


# ================================================================================== backward ====
def test_backward_returns_a_gradients_container():
    grads = leaf([1.0]).sum().backward()
    assert isinstance(grads, Gradients)
    assert burn_torch.Gradients is Gradients


def test_backward_gives_the_burn_doc_example_gradient():
    t = Tensor.ones([2, 2], AD).require_grad()
    grads = t.powf_scalar(2.0).sum().backward()
    assert vals(t.grad(grads)) == [[2.0, 2.0], [2.0, 2.0]]


def test_backward_seeds_ones_so_a_non_scalar_output_is_its_sum():
    x1 = leaf([1.0, 2.0, 3.0])
    x2 = leaf([1.0, 2.0, 3.0])
    w = f64([2.0, -1.0, 0.5])
    g_direct = x1.grad((x1 * x1 * w).backward())
    g_sum = x2.grad((x2 * x2 * w).sum().backward())
    assert vals(g_direct) == vals(g_sum) == [4.0, -4.0, 3.0]


def test_backward_on_a_leaf_gives_ones():
    x = leaf([[1.0, 2.0]])
    assert vals(x.grad(x.backward())) == [[1.0, 1.0]]


def test_backward_sums_gradients_reaching_a_leaf_by_several_paths():
    x = leaf([3.0])
    y = x * 2.0
    grads = (y * y + y + x).sum().backward()
    # d/dx (4x^2 + 2x + x) = 8x + 3
    assert vals(x.grad(grads)) == [27.0]


def test_backward_does_not_write_onto_tensors():
    x = leaf([1.0])
    (x * 2.0).sum().backward()
    assert flags(x) == (True, True, True)
    assert x.to_torch().grad is None


def test_second_backward_raises_graph_consumed():
    loss = (leaf([1.0]) * 2.0).sum()
    loss.backward()
    with pytest.raises(GraphConsumedError, match="retain_graph"):
        loss.backward()


def test_backward_through_a_consumed_intermediate_raises():
    x = leaf([1.0])
    y = x * 2.0
    y.exp().sum().backward()
    with pytest.raises(GraphConsumedError, match="consumed"):
        (y * 3.0).sum().backward()


def test_branch_built_before_backward_on_a_consumed_intermediate_raises():
    x = leaf([1.0])
    y = x * 2.0
    other = (y * 3.0).sum()
    y.sum().backward()
    with pytest.raises(GraphConsumedError):
        other.backward()


def test_fresh_branch_sharing_leaves_still_works_after_backward():
    x = leaf([2.0])
    (x * 3.0).sum().backward()
    grads = (x * x).sum().backward()
    assert vals(x.grad(grads)) == [4.0]


def test_leaves_are_reusable_in_fresh_forwards():
    x = leaf([1.0, 2.0])
    for k in (1.0, 2.0, 3.0):
        grads = (x * k).sum().backward()
        assert vals(x.grad(grads)) == [k, k]
    assert flags(x) == (True, True, True)


@pytest.mark.parametrize("fresh_first", [True, False], ids=["fresh_plus_consumed", "consumed_plus_fresh"])
def test_consumed_ancestry_is_rejected_before_anything_is_consumed(fresh_first):
    x = leaf([1.0, 2.0])
    shared = x * 2.0
    shared.sum().backward()  # consumes `shared`
    fresh = ((x * 5.0) * 2.0).neg()
    mixed = ((fresh + shared) if fresh_first else (shared + fresh)).sum()
    with pytest.raises(GraphConsumedError):
        mixed.backward()
    # the failed call consumed nothing: every step of the fresh branch still backpropagates
    grads = fresh.sum().backward()
    assert vals(x.grad(grads)) == [-10.0, -10.0]


def test_failed_backward_does_not_consume_the_root_step():
    x = leaf([1.0])
    shared = x * 2.0
    shared.sum().backward()
    fresh = x * 5.0
    mixed = fresh + shared
    with pytest.raises(GraphConsumedError):
        mixed.sum().backward()
    # mixed itself is not marked consumed: its error is still about the consumed ancestor
    with pytest.raises(GraphConsumedError, match="needs intermediate step"):
        mixed.backward()


def test_clones_share_steps_so_backward_via_a_clone_consumes_the_original():
    loss = (leaf([1.0]) * 2.0).sum()
    loss.clone().backward()
    with pytest.raises(GraphConsumedError):
        loss.backward()


def test_clone_of_an_intermediate_shares_its_step():
    x = leaf([1.0])
    y = x * 2.0
    y.clone().sum().backward()
    with pytest.raises(GraphConsumedError):
        y.sum().backward()


def test_is_tracked_stays_true_after_the_graph_is_consumed():
    x = leaf([1.0])
    y = x * 2.0
    loss = y.sum()
    loss.backward()
    assert loss.is_tracked() is True
    assert y.is_tracked() is True
    assert x.is_tracked() is True


def test_combine_losses_sharing_intermediates_before_one_backward():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    grads = (h.sum() + (h * h).sum()).backward()
    # d/dx (3x + 9x^2) = 3 + 18x
    assert vals(x.grad(grads)) == [21.0, 39.0]


@pytest.mark.parametrize("make", [
    lambda: f64([1.0], CPU),
    lambda: f64([1.0], AD),
    lambda: (leaf([1.0]) * 2.0).detach(),
    lambda: Tensor.from_data([1], AD),
], ids=["plain", "autodiff_constant", "detached_intermediate", "int"])
def test_backward_on_an_untracked_tensor_raises_not_tracked_with_burns_message(make):
    with pytest.raises(NotTrackedError,
                       match=r"call Tensor\.autodiff\(\)\.require_grad\(\) on the source leaf "
                             r"before computing the output"):
        make().backward()


@pytest.mark.parametrize("args,kwargs", [
    ((), {"retain_graph": True}),
    ((), {"create_graph": True}),
    ((), {"gradient": None}),
    ((None,), {}),
    (("grad",), {}),
], ids=["retain_graph", "create_graph", "gradient_kw", "positional_none", "positional_seed"])
def test_backward_with_any_argument_raises_unsupported_feature(args, kwargs):
    loss = (leaf([1.0]) * 2.0).sum()
    with pytest.raises(UnsupportedAutodiffFeatureError, match="retain_graph"):
        loss.backward(*args, **kwargs)


def test_backward_with_an_external_seed_tensor_raises_unsupported_feature():
    y = leaf([1.0, 2.0]) * 2.0
    with pytest.raises(UnsupportedAutodiffFeatureError):
        y.backward(f64([1.0, 1.0], CPU))


def test_unsupported_backward_arguments_consume_nothing():
    x = leaf([1.0])
    loss = (x * 2.0).sum()
    with pytest.raises(UnsupportedAutodiffFeatureError):
        loss.backward(retain_graph=True)
    assert vals(x.grad(loss.backward())) == [2.0]


def test_returned_gradients_carry_no_autodiff():
    x = leaf([1.0, 2.0], CK)
    g = x.grad((x * 3.0).sum().backward())
    assert flags(g) == (False, False, False)
    assert g.gradient_checkpointing_strategy() is None
    assert g.to_torch().requires_grad is False


def test_backward_on_a_gradient_raises_not_tracked():
    x = leaf([1.0])
    g = x.grad((x * 3.0).sum().backward())
    with pytest.raises(NotTrackedError):
        g.backward()


def test_gradient_has_the_leafs_shape_and_dtype():
    x = leaf([[1.0, 2.0, 3.0]])
    g = x.grad((x * 2.0).sum().backward())
    assert g.dims() == [1, 3]
    assert g.dtype() is DType.F64


def test_gradient_flows_through_a_broadcast_operand_reduced_to_its_shape():
    x = leaf([[1.0], [2.0]])          # [2, 1]
    w = leaf([[10.0, 20.0, 30.0]])    # [1, 3]
    grads = (x * w).sum().backward()
    assert vals(x.grad(grads)) == [[60.0], [60.0]]
    assert vals(w.grad(grads)) == [[3.0, 3.0, 3.0]]


def test_backward_works_under_the_balanced_strategy():
    x = leaf([1.0, 2.0], CK)
    grads = ((x * x).exp().log() * 0.5).sum().backward()
    # d/dx (0.5 x^2) = x
    x.grad(grads).to_data().assert_approx_eq(f64([1.0, 2.0], CPU).to_data(), 1e-12)


# ============================================================== grad / grad_remove / replace ====
def test_grad_is_none_for_an_untracked_autodiff_tensor():
    x = leaf([1.0])
    c = f64([2.0])
    grads = (x * c).sum().backward()
    assert c.grad(grads) is None


def test_grad_is_none_for_a_non_retaining_intermediate():
    x = leaf([1.0])
    y = x * 2.0
    grads = (y * 3.0).sum().backward()
    assert y.grad(grads) is None


def test_grad_is_none_for_a_tensor_without_autodiff():
    x = leaf([1.0])
    p = f64([2.0], CPU)
    grads = (x * p).sum().backward()
    assert p.grad(grads) is None
    assert x.without_autodiff().grad(grads) is None


def test_grad_is_none_for_a_leaf_the_backward_did_not_reach():
    x = leaf([1.0])
    other = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    assert other.grad(grads) is None


def test_repeated_grad_returns_the_same_gradient_handle():
    x = leaf([1.0, 2.0])
    grads = (x * 2.0).sum().backward()
    g1 = x.grad(grads)
    g2 = x.grad(grads)
    assert g1.to_torch().data_ptr() == g2.to_torch().data_ptr()
    assert vals(g1) == vals(g2) == [2.0, 2.0]
    assert len(grads) == 1


def test_grad_remove_returns_the_gradient_and_removes_it():
    x = leaf([1.0])
    grads = (x * 4.0).sum().backward()
    g = x.grad_remove(grads)
    assert vals(g) == [4.0]
    assert flags(g) == (False, False, False)
    assert len(grads) == 0
    assert x.grad(grads) is None
    assert x.grad_remove(grads) is None


def test_grad_remove_leaves_other_gradients_in_place():
    x = leaf([1.0])
    w = leaf([3.0])
    grads = (x * w).sum().backward()
    x.grad_remove(grads)
    assert len(grads) == 1
    assert vals(w.grad(grads)) == [1.0]


def test_grad_remove_is_none_for_intermediates_and_untracked_tensors():
    x = leaf([1.0])
    y = x * 2.0
    grads = (y * 3.0).sum().backward()
    assert y.grad_remove(grads) is None
    assert f64([1.0]).grad_remove(grads) is None
    assert f64([1.0], CPU).grad_remove(grads) is None
    assert len(grads) == 1


def test_grad_replace_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    grads = (x * 2.0).sum().backward()
    x.grad_replace(grads, f64([7.0, 8.0], CPU))
    assert vals(x.grad(grads)) == [7.0, 8.0]
    assert len(grads) == 1


def test_grad_replace_reinserts_a_removed_gradient():
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    x.grad_remove(grads)
    x.grad_replace(grads, f64([5.0], CPU))
    assert vals(x.grad(grads)) == [5.0]
    assert len(grads) == 1


def test_grad_replace_accepts_a_gradient_made_plain_with_without_autodiff():
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    x.grad_replace(grads, f64([9.0]).without_autodiff())
    assert vals(x.grad(grads)) == [9.0]


def test_grad_replace_on_a_tensor_without_autodiff_raises_and_leaves_the_container_unchanged():
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    with pytest.raises(AutodiffDisabledError, match=r"autodiff\(\)"):
        x.without_autodiff().grad_replace(grads, f64([5.0], CPU))
    assert len(grads) == 1
    assert vals(x.grad(grads)) == [2.0]


def test_grad_replace_with_an_autodiff_gradient_raises_and_leaves_the_container_unchanged():
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    with pytest.raises(GradientAutodiffError, match=r"without_autodiff\(\)"):
        x.grad_replace(grads, f64([5.0], AD))
    assert len(grads) == 1
    assert vals(x.grad(grads)) == [2.0]


def test_grad_replace_with_a_shape_mismatch_raises_value_error_and_leaves_the_container_unchanged():
    x = leaf([1.0, 2.0])
    grads = (x * 2.0).sum().backward()
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]"):
        x.grad_replace(grads, f64([1.0, 2.0, 3.0], CPU))
    assert len(grads) == 1
    assert vals(x.grad(grads)) == [2.0, 2.0]


def test_grad_replace_on_an_untracked_autodiff_tensor_leaves_the_container_unchanged():
    # it has no entry to replace (what the code does; Burn does not say more)
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    f64([1.0]).grad_replace(grads, f64([5.0], CPU))
    assert len(grads) == 1
    assert vals(x.grad(grads)) == [2.0]


# ================================================================================= Gradients ====
def test_gradients_len_counts_only_retaining_leaves():
    x = leaf([1.0])
    w = leaf([2.0])
    c = f64([3.0])
    p = f64([4.0], CPU)
    h = x * w
    loss = (h * c + p + h.exp()).sum()
    grads = loss.backward()
    assert len(grads) == 2


def test_gradients_len_excludes_detached_and_unreached_leaves():
    x = leaf([1.0])
    d = x.detach()
    unused = leaf([1.0])
    grads = (x * 2.0 + d.without_autodiff()).sum().backward()
    assert len(grads) == 1
    assert d.grad(grads) is None and unused.grad(grads) is None


def test_gradients_pickle_round_trip_keeps_values():
    x = leaf([1.0, 2.0])
    w = leaf([[3.0]])
    grads = ((x * w) * x).sum().backward()
    restored = pickle.loads(pickle.dumps(grads))
    assert isinstance(restored, Gradients)
    assert len(restored) == 2
    assert vals(x.grad(restored)) == [6.0, 12.0]
    assert vals(w.grad(restored)) == [[5.0]]


def test_gradients_can_be_read_from_another_thread():
    x = leaf([1.0, 2.0])
    grads = (x * 3.0).sum().backward()
    seen = {}

    def reader():
        seen["grad"] = vals(x.grad(grads))
        seen["flags"] = flags(x.grad(grads))

    t = threading.Thread(target=reader)
    t.start()
    t.join()
    assert seen == {"grad": [3.0, 3.0], "flags": (False, False, False)}


def test_each_backward_returns_a_new_container():
    x = leaf([1.0])
    g1 = (x * 2.0).sum().backward()
    g2 = (x * 3.0).sum().backward()
    assert g1 is not g2
    assert vals(x.grad(g1)) == [2.0]
    assert vals(x.grad(g2)) == [3.0]


# ============================================================================ Int and Bool ====
@pytest.mark.parametrize("make", [
    lambda d: Tensor.from_data([1, 2], d),
    lambda d: Tensor.from_data([True, False], d),
], ids=["int", "bool"])
def test_int_and_bool_tensors_carry_the_association_but_never_a_graph(make):
    t = make(CK)
    assert t.is_autodiff() is True
    assert t.is_tracked() is False
    assert t.is_require_grad() is False
    assert t.gradient_checkpointing_strategy() is BALANCED
    x = leaf([1.0])
    grads = (x * 2.0).sum().backward()
    assert t.grad(grads) is None


def test_int_and_bool_results_of_tracked_floats_are_untracked_autodiff_tensors():
    x = leaf([1.0, 3.0, 2.0], CK)
    for t in (x.argmax(0), x.int(), x.greater_elem(1.5), x.bool(), x.lower(x * 2.0)):
        assert t.kind in (Int, Bool)
        assert flags(t) == (True, False, False)
        assert t.gradient_checkpointing_strategy() is BALANCED


def test_with_gradient_checkpointing_strategy_works_on_int_and_bool():
    i = Tensor.from_data([1], AD).with_gradient_checkpointing_strategy(BALANCED)
    b = Tensor.from_data([True], AD).with_gradient_checkpointing_strategy(BALANCED)
    assert i.gradient_checkpointing_strategy() is BALANCED and i.kind is Int
    assert b.gradient_checkpointing_strategy() is BALANCED and b.kind is Bool
    with pytest.raises(AutodiffDisabledError):
        Tensor.from_data([1], CPU).with_gradient_checkpointing_strategy(BALANCED)


def test_int_tensor_autodiff_and_without_autodiff():
    i = Tensor.from_data([1], CPU).autodiff()
    assert i.is_autodiff() is True and i.gradient_checkpointing_strategy() is DISABLED
    assert i.without_autodiff().is_autodiff() is False


def test_float_of_an_autodiff_int_tensor_is_an_autodiff_constant():
    f = Tensor.from_data([2, 3], CK).float()
    assert f.kind is Float
    assert flags(f) == (True, False, False)
    assert f.gradient_checkpointing_strategy() is BALANCED
    x = leaf([1.0, 1.0], CK).cast(DType.F32)
    grads = (x * f).sum().backward()
    assert f.grad(grads) is None


def test_float_of_an_autodiff_int_tensor_acts_as_a_constant_for_the_gradient():
    x = Tensor.from_data([1.0, 1.0], AD).require_grad()
    f = Tensor.from_data([2, 3], AD).float()
    grads = (x * f).sum().backward()
    assert vals(x.grad(grads)) == [2.0, 3.0]


# ==================================================================================== errors ====
def test_autodiff_error_subclasses_runtime_error():
    assert issubclass(AutodiffError, RuntimeError)


@pytest.mark.parametrize("cls", [AutodiffDisabledError, NotTrackedError, GraphConsumedError,
                                 NonLeafRequireGradError, StrategyMismatchError,
                                 GradientAutodiffError, UnsupportedAutodiffFeatureError])
def test_every_specific_error_is_an_autodiff_error(cls):
    assert issubclass(cls, AutodiffError)
    assert getattr(burn_torch, cls.__name__) is cls


def test_every_violated_precondition_raises_an_autodiff_error():
    x = leaf([1.0])
    y = x * 2.0
    grads = y.sum().backward()
    violations = [
        lambda: f64([1.0], CPU).require_grad(),
        lambda: y.require_grad(),
        lambda: f64([1.0]).backward(),
        lambda: y.sum().backward(),
        lambda: f64([1.0], AD) + f64([1.0], CK),
        lambda: x.grad_replace(grads, f64([1.0], AD)),
        lambda: x.without_autodiff().grad_replace(grads, f64([1.0], CPU)),
        lambda: f64([1.0], CPU).with_gradient_checkpointing_strategy(BALANCED),
        lambda: x.sum().backward(retain_graph=True),
        lambda: CPU.gradient_checkpointing(),
    ]
    for v in violations:
        with pytest.raises(AutodiffError):
            v()
    assert len(grads) == 1
    assert vals(x.grad(grads)) == [2.0]


def test_strategy_mismatch_inside_a_forward_does_not_touch_the_graph():
    x = leaf([1.0])
    y = x * 2.0
    with pytest.raises(StrategyMismatchError):
        y + f64([1.0], CK)
    assert vals(x.grad(y.sum().backward())) == [2.0]
