"""The benchmarks time what they claim: each side of ``benchmarks/op_overhead.py`` computes the
same gradients (its own guard, run here on every op so a broken op entry fails the suite rather
than a benchmark run), and so does each step benchmark's hand-written floor; ``train_step``'s
models train as torch's, their captured steps bit-equal to eager."""
import importlib
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
import op_overhead  # noqa: E402


@pytest.mark.parametrize("name", list(op_overhead.OPS))
def test_each_op_overhead_pair_computes_torchs_gradients(name):
    inputs, torch_fn, burn_fn, transposed = op_overhead.OPS[name]
    calls, check = op_overhead.sides(inputs, torch_fn, burn_fn, transposed)
    check()
    assert len(calls) == 4


def test_python_calls_counts_the_frames_a_call_enters_below_its_own():
    def leaf():
        return 1

    def middle():
        return leaf() + leaf() + len("builtins are not frames")

    assert op_overhead.python_calls(middle) == 2
    assert op_overhead.python_calls(lambda: middle()) == 3


@pytest.mark.parametrize("name", ["mlp_step", "cnn_step", "transformer_step", "gpt_step"])
def test_each_hand_written_floor_computes_torchs_gradients(name):
    bench = importlib.import_module(name)
    # run() asserts the floor's gradients equal torch autograd's before timing (one short round)
    floor_seconds = bench.bench(*bench.SIZES[0], rounds=1, inner=1)[4]
    assert floor_seconds > 0


def test_every_train_step_model_trains_as_torch_and_its_captured_step_replays_bit_equal():
    train_step = importlib.import_module("train_step")
    for name, make_burn, make_torch, x, y in train_step.cases():
        # final_weight_diff asserts the captured side (optimizer step included) replayed from
        # the fourth step on and matched eager bit for bit, weights and optimizer state
        worst = train_step.final_weight_diff(make_burn, make_torch, x, y, 4)
        assert worst < train_step.TOLERANCE, name


def test_the_learner_overhead_benchmark_compares_runs_that_train_the_same_weights(tmp_path):
    learner_overhead = importlib.import_module("learner_overhead")
    learner_overhead.check_same_training(1, tmp_path)   # asserts bit-equal final weights


def test_the_testing_kit_speed_cases_pass_on_correct_code():
    """Every timed case of benchmarks/testing_kit_speed.py is a check that passes (a failing
    case would time the failure report), and the property runs."""
    import testing_kit_speed

    for fn in testing_kit_speed.CASES.values():
        fn()
    testing_kit_speed.layer_norm_property()


@pytest.mark.parametrize("program", ["mnist", "nanogpt", "lstm_lm", "seq2seq"])
def test_each_ported_program_trains_to_torchs_weights(program):
    programs_step = importlib.import_module("programs_step")
    size = programs_step.PROGRAMS[program][2][0]
    # measure() asserts both sides end on the same weights after the guard's iterations
    _, _, worst = programs_step.measure(program, size, steps=2, rounds=1, inner=1)
    assert worst < programs_step.TOLERANCE


def test_table_reads_each_ratio_under_the_column_it_follows():
    table = importlib.import_module("table")
    harness_output = (
        "   B,H,L | torch autograd | burn_torch |  ratio |    captured |  ratio |       floor |"
        "  ratio | max|grad diff|\n"
        "  8,16,4 |       100.0 µs |    95.0 µs |  0.950 |     60.0 µs |  0.600 |     45.0 µs |"
        "  0.450 | 1.0e-07\n")
    train_output = (
        "   model | torch steps/s | burn_torch steps/s |  ratio | captured |  ratio | max|weight diff|\n"
        "  mlp 64 |         100.0 |               90.0 |  1.111 |    150.0 |  0.667 | 0.0e+00\n")
    assert table.parse_rows(harness_output) == {
        "8,16,4": {"eager": 0.95, "captured": 0.6, "floor": 0.45}}
    assert table.parse_rows(train_output) == {"mlp 64": {"eager": 1.111, "captured": 0.667}}
    rnn_output = (
        "kind,B,T,H,V|D | torch autograd | burn_torch |  ratio |    captured |  ratio | max|grad diff|\n"
        "lstm,8,16,32,100 |    100.0 µs |   115.0 µs |  1.150 |     93.0 µs |  0.930 | 1.0e-07\n")
    assert table.parse_rows(rnn_output) == {"lstm,8,16,32,100": {"eager": 1.15, "captured": 0.93}}
