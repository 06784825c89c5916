"""Burn's recurrent layers (``burn::nn::rnn``): ``Rnn`` / ``BiRnn`` (``basic``), ``Lstm`` /
``BiLstm``, ``Gru`` / ``BiGru``, and the ``GateController`` their gates are made of. What they
share (the fused whole-sequence pass, step order, states, the ``Bi`` wrapper) is in ``base``.
"""
from .basic import BiRnn, BiRnnConfig, Rnn, RnnConfig, RnnState
from .gate_controller import GateController
from .gru import BiGru, BiGruConfig, Gru, GruConfig
from .lstm import BiLstm, BiLstmConfig, Lstm, LstmConfig, LstmState

__all__ = [
    "BiRnn", "BiRnnConfig", "Rnn", "RnnConfig", "RnnState", "GateController", "BiGru",
    "BiGruConfig", "Gru", "GruConfig", "BiLstm", "BiLstmConfig", "Lstm", "LstmConfig", "LstmState",
]
