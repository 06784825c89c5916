"""Every layer's forward checks its input against its config (features, channels, model width,
rank): a wrong size is a ValueError naming the layer, the input it expects and the shape it
got, raised before anything is recorded (Burn's layers panic on a shape mismatch; torch's
kernels would fail later with their own words, or, as an LSTM's did, not at all)."""
from __future__ import annotations

import pytest

from burn_torch import Device, Tensor, nn

AD = Device.cpu().autodiff()


def ones(*shape):
    return Tensor.ones(list(shape), AD)


def forward(module, shape):
    return module.forward(ones(*shape))


def sequence(module, shape):
    return module.forward(ones(*shape), None)


def attention(module, shape):
    return module.forward(nn.MhaInput.self_attn(ones(*shape)))


# layer name, the layer, how it is called on an input of a shape, what the message expects, a
# wrong shape, a right one
CASES = [
    ("Linear", lambda: nn.LinearConfig(4, 2).init(AD), forward, "[..., 4] (d_input 4)", [1, 3], [1, 4]),
    ("Linear", lambda: nn.LinearConfig(4, 2).init(AD), forward, "[..., 4] (d_input 4)", [2, 5, 3],
     [2, 5, 4]),
    ("Conv1d", lambda: nn.Conv1dConfig(4, 2, 3).init(AD), forward,
     "[batch, 4, length] (channels_in 4)", [1, 3, 8], [1, 4, 8]),
    ("Conv2d", lambda: nn.Conv2dConfig([4, 2], [3, 3]).init(AD), forward,
     "[batch, 4, height, width] (channels_in 4)", [1, 3, 8, 8], [1, 4, 8, 8]),
    ("Conv2d", lambda: nn.Conv2dConfig([4, 2], [3, 3]).init(AD), forward,
     "[batch, 4, height, width] (channels_in 4)", [4, 8, 8], [1, 4, 8, 8]),
    ("Conv2d", lambda: nn.Conv2dConfig([4, 2], [3, 3]).with_groups(2).init(AD), forward,
     "[batch, 4, height, width] (channels_in 4)", [1, 2, 8, 8], [1, 4, 8, 8]),
    ("Conv3d", lambda: nn.Conv3dConfig([4, 2], [1, 1, 1]).init(AD), forward,
     "[batch, 4, depth, height, width] (channels_in 4)", [1, 3, 2, 2, 2], [1, 4, 2, 2, 2]),
    ("ConvTranspose1d", lambda: nn.ConvTranspose1dConfig([4, 2], 3).init(AD), forward,
     "[batch, 4, ...] (channels_in 4)", [1, 3, 5], [1, 4, 5]),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2dConfig([4, 2], [3, 3]).init(AD), forward,
     "[batch, 4, ...] (channels_in 4)", [1, 3, 5, 5], [1, 4, 5, 5]),
    ("ConvTranspose3d", lambda: nn.ConvTranspose3dConfig([4, 2], [1, 1, 1]).init(AD), forward,
     "[batch, 4, ...] (channels_in 4)", [1, 4, 5, 5], [1, 4, 5, 5, 5]),
    ("BatchNorm", lambda: nn.BatchNormConfig(4).init(AD), forward, "[batch, 4, ...]", [2, 3, 5],
     [2, 4, 5]),
    ("LayerNorm", lambda: nn.LayerNormConfig(4).init(AD), forward, "[..., 4]", [2, 3], [2, 4]),
    ("GroupNorm", lambda: nn.GroupNormConfig(2, 4).init(AD), forward, "[batch, 4, ...]", [2, 6, 5],
     [2, 4, 5]),
    ("InstanceNorm", lambda: nn.InstanceNormConfig(4).init(AD), forward, "[batch, 4, ...]",
     [2, 3, 5], [2, 4, 5]),
    ("GroupNorm", lambda: nn.GroupNormConfig(2, 4).init(AD), forward, "[batch, 4, ...]", [4],
     [2, 4]),
    ("InstanceNorm", lambda: nn.InstanceNormConfig(4).init(AD), forward, "[batch, 4, ...]", [4],
     [2, 4, 3]),
    ("RmsNorm", lambda: nn.RmsNormConfig(4).init(AD), forward, "[..., 4]", [2, 3], [2, 4]),
    ("Lstm", lambda: nn.LstmConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [1, 2, 3], [1, 2, 4]),
    ("Lstm", lambda: nn.LstmConfig(4, 2, True).with_batch_first(False).init(AD), sequence,
     "[seq, batch, 4] (d_input 4)", [2, 1, 3], [2, 1, 4]),
    ("Lstm", lambda: nn.LstmConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [2, 4], [1, 2, 4]),
    ("BiLstm", lambda: nn.BiLstmConfig(4, 2, True).init(AD), sequence,
     "[batch, seq, 4] (d_input 4)", [1, 2, 3], [1, 2, 4]),
    ("Gru", lambda: nn.GruConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [1, 2, 3], [1, 2, 4]),
    ("BiGru", lambda: nn.BiGruConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [1, 2, 3], [1, 2, 4]),
    ("Rnn", lambda: nn.RnnConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [1, 2, 3], [1, 2, 4]),
    ("BiRnn", lambda: nn.BiRnnConfig(4, 2, True).init(AD), sequence, "[batch, seq, 4] (d_input 4)",
     [1, 2, 3], [1, 2, 4]),
    ("MultiHeadAttention", lambda: nn.MultiHeadAttentionConfig(4, 2).init(AD), attention,
     "[batch, seq_q, 4]", [1, 2, 3], [1, 2, 4]),
    ("PositionalEncoding", lambda: nn.PositionalEncodingConfig(4).init(AD), forward,
     "[batch, seq, 4] (d_model 4)", [1, 2, 3], [1, 2, 4]),
    ("SwiGlu", lambda: nn.SwiGluConfig(4, 2).init(AD), forward, "[..., 4] (d_input 4)", [1, 3],
     [1, 4]),
    ("PRelu", lambda: nn.PReluConfig().with_num_parameters(4).init(AD), forward,
     "[batch, 4, ...] (num_parameters 4)", [1, 3, 2], [1, 4, 2]),
]
IDS = [f"{case[0]} {case[4]}" for case in CASES]


@pytest.mark.parametrize("name, layer, call, expected, wrong, right", CASES, ids=IDS)
def test_a_wrong_size_names_the_layer_the_expected_and_the_given_shape(name, layer, call,
                                                                        expected, wrong, right):
    with pytest.raises(ValueError) as err:
        call(layer(), wrong)
    message = str(err.value)
    assert message.startswith(f"{name}: expected "), message
    assert expected in message and str(wrong) in message, message


@pytest.mark.parametrize("name, layer, call, expected, wrong, right", CASES, ids=IDS)
def test_the_size_the_message_asks_for_passes(name, layer, call, expected, wrong, right):
    call(layer(), right)
