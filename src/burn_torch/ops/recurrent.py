"""Recurrent ops: a whole LSTM, GRU or Elman-RNN layer pass over a sequence as ONE op-table entry.

Each entry is variadic (``applyn``); its inputs are, in order::

    x, h0, [c0 (lstm)], W_ih parts (one per gate), W_hh parts, [b_ih parts, b_hh parts]

with Burn's layouts: ``x`` is ``[batch, seq, d_input]`` (``batch_first``) or
``[seq, batch, d_input]``, every state ``[batch, d_hidden]``, every gate's input weight
``[d_input, d_hidden]`` and hidden weight ``[d_hidden, d_hidden]`` (``x @ W``, no transpose),
every bias ``[d_hidden]``. Gates come in PyTorch's order: LSTM ``(i, f, g, o)``, GRU
``(r, z, n)``. Attrs: ``(batch_first, reverse)``; ``reverse`` runs the steps last to first and
still writes step ``t``'s state at position ``t``.

The forward projects the whole input at once (one matmul for every step and gate), then, per time
step, one ``addmm`` for the hidden projection and the cell's pointwise kernels written into
preallocated buffers (on CUDA, torch's fused cell kernels ``_thnn_fused_lstm_cell`` /
``_thnn_fused_gru_cell``; torch has no CPU build of them). The fused rule runs the steps
backwards (on CUDA with ``_thnn_fused_lstm_cell_backward_impl`` / ``_thnn_fused_gru_cell_backward``),
then computes every weight's gradient with one matmul over all the steps.

Outputs: ``lstm`` returns ``[batch, seq + 1, d_hidden]`` (seq-first: ``[seq + 1, ...]``):
every step's hidden state, then the final cell state (the layer narrows it; the final hidden
state is the last processed step's); ``gru`` and ``rnn`` return every step's hidden state,
``[.., d_hidden]``. Residual ``acts``: the activated gates of every step (``[seq, batch,
k * d_hidden]``, time-major), and the packed weights (for the LSTM's oneDNN kernel: its
workspace, final states and inputs).
Equations (Burn's, which are PyTorch's for these three cells)::

    lstm: i, f, o = σ(.), g = tanh(.), c' = f c + i g, h' = o tanh(c')
    gru:  r, z = σ(x W_ir + b_ir + h W_hr + b_hr), n = tanh(x W_in + b_in + r (h W_hn + b_hn)),
          h' = (1 - z) n + z h
    rnn:  h' = tanh(x W_ih + b_ih + h W_hh + b_hh)
"""
from __future__ import annotations

import torch

from .table import COMPUTE, defop
from .kernels import kernel

aten = torch.ops.aten
_mm = torch.mm
_addmm = torch.addmm
_mul = torch.mul
_cat = torch.cat
# ``1 - t`` and ``t.split(n)`` go through Python wrappers in torch (``Tensor.__rsub__``,
# ``Tensor.split``): these kernels' bindings are called directly
_rsub = torch.rsub
_unbind_copy = torch.unbind_copy
_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled

_ACT_RESIDUALS = ("acts", "w_ih", "w_hh")
_LSTM_RESIDUALS = ("acts", "cells", "w_ih", "w_hh")
_NEEDS = (("x", "out") + _ACT_RESIDUALS,)


def _unpack(datas, n_states: int, n_gates: int):
    """``(x, states, W_ih [D, kH], W_hh [H, kH], b_ih [kH] | None, b_hh | None)``."""
    x = datas[0]
    states = datas[1:1 + n_states]
    w = datas[1 + n_states:]
    k = n_gates
    w_ih = w[0] if k == 1 else _cat(w[:k], 1)
    w_hh = w[k] if k == 1 else _cat(w[k:2 * k], 1)
    if len(w) == 2 * k:
        return x, states, w_ih, w_hh, None, None
    b_ih = w[2 * k] if k == 1 else _cat(w[2 * k:3 * k])
    b_hh = w[3 * k] if k == 1 else _cat(w[3 * k:4 * k])
    return x, states, w_ih, w_hh, b_ih, b_hh


def _time_major(x, batch_first: bool):
    return x.transpose(0, 1) if batch_first else x


def _project(xs, w, b):
    """``xs [T, B, D] @ w [D, N] (+ b)`` as ``[T, B, N]``."""
    T, B, D = xs.shape
    x2 = xs.reshape(T * B, D)
    out = _mm(x2, w) if b is None else _addmm(b, x2, w)
    return out.view(T, B, -1)


def _steps(T: int, reverse: bool):
    return range(T - 1, -1, -1) if reverse else range(T)


def _previous(seq, first, reverse: bool):
    """Each step's previous state in processing order, ``[T, B, H]`` (``first`` at step one)."""
    first = first.unsqueeze(0)
    if seq.shape[0] == 1:  # one step (a decoder loop's): no copy
        return first
    return _cat((seq[1:], first)) if reverse else _cat((first, seq[:-1]))


def _split_grads(parents, n_states, n_gates, g_x, g_states, g_w_ih, g_w_hh, g_b):
    """Per input, its gradient (views of the packed gradients), None for untracked inputs."""
    k = n_gates
    out = [g_x, *g_states]
    out.extend(g_w_ih.chunk(k, 1) if k > 1 else (g_w_ih,))
    out.extend(g_w_hh.chunk(k, 1) if k > 1 else (g_w_hh,))
    if len(parents) > len(out):
        for gb in g_b:
            out.extend(gb.chunk(k) if k > 1 else (gb,))
    return tuple(o if p is not None else None for o, p in zip(out, parents))


def _input_grads(g_pre, xs, w_ih, batch_first):
    """Gradients of x (in its layout) and of W_ih from the gate pre-activations' gradient."""
    T, B, N = g_pre.shape
    g2 = g_pre.view(T * B, N)
    g_x = _mm(g2, w_ih.t()).view(T, B, -1)
    g_w_ih = _mm(xs.reshape(T * B, -1).t(), g2)
    return _time_major(g_x, batch_first), g_w_ih


# ================================================================================== lstm ======
# Three kernels, chosen per call: float32 on CPU with oneDNN, torch's whole-layer
# ``mkldnn_rnn_layer`` and its backward (what torch.nn.LSTM runs there); on CUDA, the fused
# cell kernels per step; otherwise (float64, ...) the per-step loop below. The loop lays the
# packed gates out (i, f, o, g), so one sigmoid covers three gates; the CUDA kernels take
# PyTorch's (i, f, g, o). The permutation is its own inverse.
_CPU_ORDER = (0, 1, 3, 2)
_MKLDNN_LSTM = 2  # the kernel's mode for an LSTM
_MKLDNN_OK = torch.backends.mkldnn.is_available()
_mkldnn_enabled = torch._C._get_mkldnn_enabled  # torch.backends.mkldnn.enabled, read per call
_MKLDNN_LAYER = torch.mkldnn_rnn_layer  # torch's binding: cheaper to call than the op overload
_MKLDNN_LAYER_BACKWARD = kernel(aten.mkldnn_rnn_layer_backward.default)


def _use_mkldnn(x) -> bool:
    return (_MKLDNN_OK and x.dtype is torch.float32 and x.is_cpu
            and _mkldnn_enabled())


def _lstm_parts(datas, loop: bool):
    """The inputs with the gates of every weight / bias group in the loop's order (loop), or
    unchanged."""
    if not loop:
        return datas
    head, w = tuple(datas[:3]), tuple(datas[3:])
    return head + tuple(w[4 * (k // 4) + _CPU_ORDER[k % 4]] for k in range(len(w)))


def _mkldnn_weights(datas):
    """PyTorch-layout ``(w_ih [4H, D], w_hh [4H, H], b_ih [4H] | None, b_hh | None)``: each
    weight is its gates' transposes stacked along the output dim, written by one ``cat`` (2.5x
    faster than concatenating Burn's ``[D, H]`` blocks and then copying the transpose)."""
    w = datas[3:]
    w_ih = _cat([g.t() for g in w[:4]])
    w_hh = _cat([g.t() for g in w[4:8]])
    if len(w) > 8:
        b = _cat(w[8:16])  # both biases in one kernel call
        half = b.shape[0] // 2
        return w_ih, w_hh, b[:half], b[half:]
    return w_ih, w_hh, None, None


# entries of a packed weight gradient (four 64x64 gates) from which its gates are made contiguous:
# an elementwise op on a transposed 64x64 gate costs 2.4 µs more than on a contiguous one (3.6 µs
# to copy it), on a 32x32 gate 0.6 µs (1.8 µs to copy)
_SHARED_MIN = 1 << 14


def _gate_blocks(g, parents):
    """A packed ``[k * H, ...]`` gradient (PyTorch layout) as one tensor per gate (``parents``:
    the gates' nodes) in Burn's layout, ``[D, H]`` for a weight, ``[H]`` for a bias.

    When every gate is tracked, the gates partition one buffer, handed out as parts detached
    from it (so that the engine keeps them as they are): together they hold no byte more than
    separate copies would. A bias's parts and a small weight's are parts of the kernel's own
    gradient (no copy; a weight's are transposed views); a large weight's (``_SHARED_MIN``
    entries) are parts of one transposing copy of it, contiguous for the ops that read them
    (one copy: 1.7-2.7x faster than one per gate at 100-200 wide gates). With an untracked gate
    each tracked gate gets its own copy: the untracked one's part must not be kept alive."""
    n = len(parents)
    blocks = g.view(n, -1) if g.dim() == 1 else g.view(n, -1, g.shape[1]).transpose(1, 2)
    if None in parents:
        return _unbind_copy(blocks)
    if g.dim() == 2 and g.numel() >= _SHARED_MIN:
        blocks = blocks.contiguous()
    return [b.detach() for b in blocks.unbind(0)]


def _lstm_forward_mkldnn(datas, xs, batch_first, reverse):
    """The forward as torch's oneDNN layer kernel (its training form, which keeps a workspace
    for the backward); residuals: the workspace, the final states, the kernel's inputs."""
    h, c = datas[1], datas[2]
    w_ih, w_hh, b_ih, b_hh = _mkldnn_weights(datas)
    biased = b_ih is not None
    if not biased:  # the kernel ignores them (it adds zeros itself): any tensor will do
        b_ih = b_hh = w_hh
    xs = xs.contiguous()
    prev = _grad_enabled()
    _set_grad(True)
    try:
        y, hy, cy, ws = _MKLDNN_LAYER(xs, w_ih, w_hh, b_ih, b_hh, h.contiguous(), c.contiguous(),
                                      reverse, (), _MKLDNN_LSTM, w_hh.shape[1], 1, biased, False,
                                      False, True)
    finally:
        _set_grad(prev)
    out = _cat((y, cy.unsqueeze(0)))
    return (_time_major(out, batch_first), ws, (hy, cy), (xs, w_ih, b_ih, b_hh, biased), w_hh)


def _lstm_forward(datas, batch_first, reverse):
    """``out``: ``[T + 1, B, H]`` time-major (batch-first: ``[B, T + 1, H]``), every step's
    hidden state then the final cell state."""
    x, h, c = datas[:3]
    xs = _time_major(x, batch_first)
    T, B, _ = xs.shape
    H = h.shape[1]
    if _use_mkldnn(x):
        return _lstm_forward_mkldnn(datas, xs, batch_first, reverse)
    out = x.new_empty(T + 1, B, H)
    cuda = x.is_cuda
    _, _, w_ih, w_hh, b_ih, b_hh = _unpack(_lstm_parts(datas, not cuda), 2, 4)
    xg = _project(xs, w_ih, None if b_ih is None else b_ih + b_hh).unbind(0)
    acts = x.new_empty(T, B, 4 * H)
    cells = x.new_empty(T, B, H)
    hs, cs, a_all = out[:T].unbind(0), cells.unbind(0), acts.unbind(0)
    if cuda:
        for t in _steps(T, reverse):
            hy, cy, ws = aten._thnn_fused_lstm_cell(xg[t], _mm(h, w_hh), c)
            h, c = hs[t].copy_(hy), cs[t].copy_(cy)
            a_all[t].copy_(ws)
    else:
        sig = acts[..., :3 * H].unbind(0)
        i_, f_, o_, g_ = (p.unbind(0) for p in acts.split_with_sizes((H, H, H, H), 2))
        for t in _steps(T, reverse):
            _addmm(xg[t], h, w_hh, out=a_all[t])
            sig[t].sigmoid_()
            g = g_[t].tanh_()
            c = _mul(f_[t], c, out=cs[t]).addcmul_(i_[t], g)
            h = torch.tanh(c, out=hs[t]).mul_(o_[t])
    out[T].copy_(c)
    return _time_major(out, batch_first), acts, cells, w_ih, w_hh


def _lstm_rule(g, s, parents):
    batch_first, reverse = s.batch_first, s.reverse
    datas = s.x
    go = _time_major(g, batch_first)
    if s.acts.dtype is torch.uint8:
        return _lstm_rule_mkldnn(go, s, parents)
    xs = _time_major(datas[0], batch_first)
    h0, c0 = datas[1], datas[2]
    out = _time_major(s.out, batch_first)
    acts, cells, w_ih, w_hh = s.acts, s.cells, s.w_ih, s.w_hh
    T, B, _ = acts.shape
    H = w_hh.shape[0]
    hs = out[:T]
    c_prev = _previous(cells, c0, reverse)
    g_pre = torch.empty_like(acts)
    gp = g_pre.unbind(0)
    gh = go[:T].unbind(0)
    w_hh_t = w_hh.t()
    dh = None
    dc = go[T]
    cuda = acts.is_cuda
    if cuda:
        cp, cn, a_all = c_prev.unbind(0), cells.unbind(0), acts.unbind(0)
        for t in _steps(T, not reverse):
            dh = gh[t] if dh is None else gh[t] + dh
            gg, dc, _ = aten._thnn_fused_lstm_cell_backward_impl(dh, dc, cp[t], cn[t], a_all[t],
                                                                 False)
            dh = _mm(gp[t].copy_(gg), w_hh_t)
    else:
        i, f, o, gt = acts.split_with_sizes((H, H, H, H), 2)
        tanh_c = cells.tanh()
        # the factors each gate's pre-activation gradient takes from dc (i, f, g) or dh (o)
        m = torch.empty_like(acts)
        mi, mf, mo, mg = m.split_with_sizes((H, H, H, H), 2)
        torch.mul(gt, i * _rsub(i, 1), out=mi)
        torch.mul(c_prev, f * _rsub(f, 1), out=mf)
        torch.mul(tanh_c, o * _rsub(o, 1), out=mo)
        torch.mul(i, _rsub(gt * gt, 1), out=mg)
        k = (o * _rsub(tanh_c * tanh_c, 1)).unbind(0)  # dc += dh * k
        f_ = f.unbind(0)
        m4, g4 = m.view(T, B, 4, H), g_pre.view(T, B, 4, H)
        mi_f, mg_, mo_ = m4[:, :, :2].unbind(0), m4[:, :, 3:].unbind(0), mo.unbind(0)
        gi_f, gg_, go_ = g4[:, :, :2].unbind(0), g4[:, :, 3:].unbind(0), g4[:, :, 2].unbind(0)
        for t in _steps(T, not reverse):
            dh = gh[t] if dh is None else gh[t] + dh
            dc = torch.addcmul(dc, dh, k[t])
            dc3 = dc.unsqueeze(1)
            _mul(mi_f[t], dc3, out=gi_f[t])
            _mul(mg_[t], dc3, out=gg_[t])
            _mul(mo_[t], dh, out=go_[t])
            dh = _mm(gp[t], w_hh_t)
            dc = dc * f_[t]
    g_x, g_w_ih = _input_grads(g_pre, xs, w_ih, batch_first)
    h_prev = _previous(hs, h0, reverse).reshape(T * B, H)
    g2 = g_pre.view(T * B, 4 * H)
    g_w_hh = _mm(h_prev.t(), g2)
    gb = g2.sum(0)
    grads = _split_grads(_lstm_parts(parents, not cuda), 2, 4, g_x, (dh, dc), g_w_ih,
                         g_w_hh, (gb, gb))
    return _lstm_parts(grads, not cuda)


def _lstm_rule_mkldnn(go, s, parents):
    """torch's ``mkldnn_rnn_layer_backward`` from the forward's workspace (it makes the output
    gradient contiguous itself); the packed gradients come back per gate (``_gate_blocks``)."""
    datas = s.x
    xs, w_ih, b_ih, b_hh, biased = s.w_ih
    w_hh = s.w_hh
    hy, cy = s.cells
    T = xs.shape[0]
    y = _time_major(s.out, s.batch_first).narrow(0, 0, T)
    g_x, g_w_ih, g_w_hh, g_b_ih, g_b_hh, g_h0, g_c0 = _MKLDNN_LAYER_BACKWARD(
        xs, w_ih, w_hh, b_ih, b_hh, datas[1].contiguous(), datas[2].contiguous(), y, hy, cy,
        go.narrow(0, 0, T), None, go.select(0, T), s.reverse, _MKLDNN_LSTM, w_hh.shape[1], 1,
        biased, True, False, (), False, s.acts)
    grads = [_time_major(g_x, s.batch_first), g_h0, g_c0, *_gate_blocks(g_w_ih, parents[3:7]),
             *_gate_blocks(g_w_hh, parents[7:11])]
    if biased:
        grads.extend(_gate_blocks(g_b_ih, parents[11:15]))
        grads.extend(_gate_blocks(g_b_hh, parents[15:19]))
    return tuple(g if p is not None else None for g, p in zip(grads, parents))


# =================================================================================== gru ======
def _gru_forward(datas, batch_first, reverse):
    x, (h,), w_ih, w_hh, b_ih, b_hh = _unpack(datas, 1, 3)
    xs = _time_major(x, batch_first)
    T, B, _ = xs.shape
    H = w_hh.shape[0]
    cuda = x.is_cuda
    xg = _project(xs, w_ih, b_ih)
    out = x.new_empty(T, B, H)
    hs = out.unbind(0)
    # per step: r, z, n, then h W_hn + b_hn (what r multiplies); CUDA: the fused kernel's workspace
    acts = x.new_empty(T, B, 5 * H if cuda else 4 * H)
    if cuda:
        xg_, a_all = xg.unbind(0), acts.unbind(0)
        for t in _steps(T, reverse):
            hg = _mm(h, w_hh) if b_hh is None else _addmm(b_hh, h, w_hh)
            hy, ws = aten._thnn_fused_gru_cell(xg_[t], hg, h)
            h = hs[t].copy_(hy)
            a_all[t].copy_(ws)
        return _time_major(out, batch_first), acts, w_ih, w_hh
    # one split per packed tensor and one unbind per part: the fewest binding calls per pass
    # (a decoder loop runs this once per generated position); split_with_sizes, not split,
    # whose Python wrapper costs more than a slice
    x_rz, x_n = xg.split_with_sizes((2 * H, H), 2)
    w_rz, w_n = w_hh.split_with_sizes((2 * H, H), 1)
    if b_hh is None:
        b_n = None
    else:  # r and z add both biases before the sigmoid: fold b_hh's in once
        b_rz, b_n = b_hh.split_with_sizes((2 * H, H))
        x_rz.add_(b_rz)
    x_rz, x_n = x_rz.unbind(0), x_n.unbind(0)
    r_, z_, n_, hn_ = acts.split_with_sizes((H, H, H, H), 2)
    r_, z_, n_, hn_ = r_.unbind(0), z_.unbind(0), n_.unbind(0), hn_.unbind(0)
    rz_ = acts[..., :2 * H].unbind(0)
    for t in _steps(T, reverse):
        # r, z = σ(x_rz + h W_rz + b_rz); hn = h W_n + b_n; n = tanh(x_n + r hn)
        _addmm(x_rz[t], h, w_rz, out=rz_[t]).sigmoid_()
        if b_n is None:
            _mm(h, w_n, out=hn_[t])
        else:
            _addmm(b_n, h, w_n, out=hn_[t])
        n = torch.addcmul(x_n[t], r_[t], hn_[t], out=n_[t]).tanh_()
        h = torch.sub(h, n, out=hs[t]).mul_(z_[t]).add_(n)
    return _time_major(out, batch_first), acts, w_ih, w_hh


def _gru_rule(g, s, parents):
    batch_first, reverse = s.batch_first, s.reverse
    datas = s.x
    xs = _time_major(datas[0], batch_first)
    out = _time_major(s.out, batch_first)
    go = _time_major(g, batch_first).unbind(0)
    acts, w_ih, w_hh = s.acts, s.w_ih, s.w_hh
    T, B, _ = out.shape
    H = w_hh.shape[0]
    h_prev = _previous(out, datas[1], reverse)
    g_in = out.new_empty(T, B, 3 * H)   # the input gates' pre-activation gradients
    g_hid = out.new_empty(T, B, 3 * H)  # the hidden gates' (n: before r multiplies it)
    w_hh_t = w_hh.t()
    dh = None
    if out.is_cuda:
        gi_, gh_, a_all = g_in.unbind(0), g_hid.unbind(0), acts.unbind(0)
        for t in _steps(T, not reverse):
            dh = go[t] if dh is None else go[t] + dh
            gi, gh, dh_direct, _, _ = aten._thnn_fused_gru_cell_backward(dh, a_all[t], False)
            gi_[t].copy_(gi)
            dh = _addmm(dh_direct, gh_[t].copy_(gh), w_hh_t)
    else:
        r, z, n, hn = acts.split_with_sizes((H, H, H, H), 2)
        one_minus_z = _rsub(z, 1)
        a_n = (one_minus_z * _rsub(n * n, 1)).unbind(0)      # d n_pre / d h'
        a_z = ((h_prev - n) * z * one_minus_z).unbind(0)  # d z_pre / d h'
        a_r = (hn * r * _rsub(r, 1)).unbind(0)               # d r_pre / d n_pre
        r_, z_ = r.unbind(0), z.unbind(0)
        gi_rz, gi_n = g_in.split_with_sizes((2 * H, H), 2)
        gh_rz, gh_n = g_hid.split_with_sizes((2 * H, H), 2)
        gi_r, gi_z = gi_rz.split_with_sizes((H, H), 2)
        gi_r, gi_z = gi_r.unbind(0), gi_z.unbind(0)
        gi_n, gi_rz, gh_rz, gh_n = gi_n.unbind(0), gi_rz.unbind(0), gh_rz.unbind(0), gh_n.unbind(0)
        gh_ = g_hid.unbind(0)
        for t in _steps(T, not reverse):
            dh = go[t] if dh is None else go[t] + dh
            dn = _mul(dh, a_n[t], out=gi_n[t])
            _mul(dh, a_z[t], out=gi_z[t])
            _mul(dn, a_r[t], out=gi_r[t])
            gh_rz[t].copy_(gi_rz[t])
            _mul(dn, r_[t], out=gh_n[t])
            dh = _addmm(dh * z_[t], gh_[t], w_hh_t)
    g_x, g_w_ih = _input_grads(g_in, xs, w_ih, batch_first)
    gh2 = g_hid.view(T * B, 3 * H)
    g_w_hh = _mm(h_prev.reshape(T * B, H).t(), gh2)
    return _split_grads(parents, 1, 3, g_x, (dh,), g_w_ih, g_w_hh,
                        (g_in.view(T * B, 3 * H).sum(0), gh2.sum(0)))


# =================================================================================== rnn ======
def _rnn_forward(datas, batch_first, reverse):
    x, (h,), w_ih, w_hh, b_ih, b_hh = _unpack(datas, 1, 1)
    xs = _time_major(x, batch_first)
    T, B, _ = xs.shape
    xg = _project(xs, w_ih, None if b_ih is None else b_ih + b_hh)
    out = x.new_empty(T, B, w_hh.shape[0])
    xg_, hs = xg.unbind(0), out.unbind(0)
    for t in _steps(T, reverse):
        h = _addmm(xg_[t], h, w_hh, out=hs[t]).tanh_()
    return _time_major(out, batch_first), None, w_ih, w_hh


def _rnn_rule(g, s, parents):
    batch_first, reverse = s.batch_first, s.reverse
    datas = s.x
    xs = _time_major(datas[0], batch_first)
    out = _time_major(s.out, batch_first)
    go = _time_major(g, batch_first)
    w_ih, w_hh = s.w_ih, s.w_hh
    T, B, H = out.shape
    deriv = _rsub(out * out, 1).unbind(0)
    g_pre = torch.empty_like(out)
    gp, go_ = g_pre.unbind(0), go.unbind(0)
    w_hh_t = w_hh.t()
    dh = None
    for t in _steps(T, not reverse):
        dh = go_[t] if dh is None else go_[t] + dh
        dh = _mm(_mul(dh, deriv[t], out=gp[t]), w_hh_t)
    g_x, g_w_ih = _input_grads(g_pre, xs, w_ih, batch_first)
    g2 = g_pre.view(T * B, H)
    g_w_hh = _mm(_previous(out, datas[1], reverse).reshape(T * B, H).t(), g2)
    gb = g2.sum(0)
    return _split_grads(parents, 1, 1, g_x, (dh,), g_w_ih, g_w_hh, (gb, gb))


def _declare(name, forward, rule):
    return defop(name, forward, COMPUTE, inputs=("*x",), attrs=("batch_first", "reverse"),
                 residuals=_ACT_RESIDUALS, fused=rule, needs=_NEEDS)


LSTM = defop("lstm", _lstm_forward, COMPUTE, inputs=("*x",), attrs=("batch_first", "reverse"),
             residuals=_LSTM_RESIDUALS, fused=_lstm_rule, needs=(("x", "out") + _LSTM_RESIDUALS,))
GRU = _declare("gru", _gru_forward, _gru_rule)
RNN = _declare("rnn", _rnn_forward, _rnn_rule)
