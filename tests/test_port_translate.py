"""burn-torch-port's behaviour beyond single table rows: the program-level rewrites (training
functions return the model they train, batches are converted where the loop reads them, the
learning rate travels with the optimizer), what is kept as written, the report and the command."""
from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import textwrap

import torch

from burn_torch_check.port import summarize, translate_source
from burn_torch_check.port.cli import main
from burn_torch_check.port.facts import TORCH_MODULE_METHODS
from burn_torch_check.port.verify_script import script

PROGRAM = textwrap.dedent('''\
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)  # the only layer

        def forward(self, x):
            return F.log_softmax(self.fc(x), dim=1)


    def train(model, train_loader, optimizer):
        model.train()
        for data, target in train_loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()


    model = Net()
    train_loader = torch.utils.data.DataLoader([])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    train(model, train_loader, optimizer)
    ''')


def test_a_function_that_trains_its_argument_returns_it_and_callers_rebind_it():
    port = translate_source(PROGRAM).code
    assert "    return model\n" in port
    assert "model = train(model, train_loader, optimizer, optimizer_lr=optimizer_lr)" in port


def test_the_learning_rate_becomes_a_keyword_only_parameter_of_a_training_function():
    port = translate_source(PROGRAM).code
    assert "def train(model, train_loader, optimizer, *, optimizer_lr):" in port
    assert "model = optimizer.step(optimizer_lr, model, GradientsParams.from_grads(grads, model))" in port


def test_torchs_optimizer_defaults_are_written_out_where_burns_differ():
    port = translate_source(PROGRAM).code
    assert "optimizer = SgdConfig(momentum=MomentumConfig(0.9, dampening=0.0)).init()" in port
    assert "optimizer_lr = 0.1" in port


def test_a_batch_is_converted_where_the_loop_reads_it_from_the_loader():
    port = translate_source(PROGRAM).code
    assert "    for data, target in train_loader:\n        data, target = from_torch(data, DEVICE), " \
           "from_torch(target, DEVICE)\n" in port


def test_comments_layout_and_the_torch_imports_are_kept_the_torch_nn_alias_renamed():
    port = translate_source(PROGRAM).code
    assert "self.fc = nn.LinearConfig(4, 2).init(device)  # the only layer" in port
    assert "import torch.nn as tnn\n" in port and "from burn_torch import " in port
    assert "\n\n\nclass Net(Module):\n" in port


def test_nll_loss_becomes_cross_entropy_only_on_log_softmax_outputs():
    assert "nn.CrossEntropyLossConfig().init(DEVICE).forward(model.forward(data), target)" in \
        translate_source(PROGRAM).code
    plain = PROGRAM.replace("F.log_softmax(self.fc(x), dim=1)", "self.fc(x)")
    port = translate_source(plain).code
    assert "# burn-torch-port: BT311" in port and "F.nll_loss(model.forward(data), target)" in port


def test_an_lstm_state_of_zeros_is_dropped_any_other_is_left_marked():
    source = textwrap.dedent('''\
        import torch
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(4, 3, batch_first=True)
            def forward(self, x, h):
                h0 = torch.zeros(1, x.size(0), 3)
                c0 = torch.zeros(1, x.size(0), 3)
                out, _ = self.lstm(x, (h0, c0))
                out2, _ = self.lstm(x, h)
                return out + out2
        ''')
    port = translate_source(source).code
    assert "out, _ = self.lstm.forward(x)" in port
    assert "# burn-torch-port: BT416" in port and "out2, _ = self.lstm(x, h)" in port


def test_a_receiver_built_from_an_argument_is_parenthesized():
    source = "import torch\nimport math\ndef f(x, d):\n    return torch.exp(x * (-math.log(1e4) / d))\n"
    assert "return (x * (-math.log(1e4) / d)).exp()" in translate_source(source).code


def test_a_torchvision_call_receives_torch_tensors():
    source = textwrap.dedent('''\
        import torch
        from torchvision.utils import save_image
        for x, y in train_loader:
            out = x.view(-1, 1, 28, 28)
            save_image(out, 'a.png')
        ''')
    assert "save_image(out.to_torch(), 'a.png')" in translate_source(source).code


def test_a_statement_still_calling_torch_after_translation_is_marked():
    source = "import torch\nclass A:\n    def f(self, x):\n        return torch.fft.rfft(x)\n"
    port = translate_source(source).code
    assert "# burn-torch-port: torch.fft.rfft has no row in the mapping table" in port


def test_the_report_counts_model_and_loop_lines_by_status_and_reason():
    summary = summarize(translate_source(PROGRAM))
    model, loop = summary.parts["model"], summary.parts["loop"]
    assert (model.lines, model.translated, model.left) == (6, 4, 0)  # the class line, both defs, three statements
    assert (loop.lines, loop.translated, loop.left) == (11, 9, 0)  # Net() and the loader stay as written
    translation = translate_source(PROGRAM.replace("momentum=0.9", "momentum=0.9, foreach=None, nesterov=True, "
                                                   "weight_decay=0.1, dampening=0.1, bogus=1"))
    report = summarize(translation)
    assert report.parts["loop"].left == 1
    assert report.parts["loop"].reasons == {"BT310 optimizer_unsupported": 1}


def test_the_torch_module_method_list_is_torchs():
    assert TORCH_MODULE_METHODS == {n for n in dir(torch.nn.Module) if not n.startswith("_")}


def test_the_command_writes_the_port_and_its_verification_script_and_reports(tmp_path, capsys):
    source = tmp_path / "prog.py"
    source.write_text(PROGRAM, encoding="utf-8")
    assert main([str(source)]) == 0
    assert (tmp_path / "prog_port.py").read_text(encoding="utf-8") == translate_source(PROGRAM).code
    script = (tmp_path / "prog_port_verify.py").read_text(encoding="utf-8")
    assert "model='Net()'" in script and "burn_optimizer='SgdConfig(momentum=MomentumConfig(0.9, dampening=0.0))'" in script
    out = capsys.readouterr().out
    assert "model code: 6 lines" in out and "verification script written" in out
    assert main([str(source), "-o", str(tmp_path / "x.py"), "--format", "json", "--no-verify-script"]) == 0
    assert json.loads(capsys.readouterr().out)["model"]["lines"] == 6
    assert not (tmp_path / "x_verify.py").exists()


def test_the_command_exits_1_when_marked_lines_remain_and_2_for_an_invalid_source(tmp_path):
    marked = tmp_path / "m.py"
    marked.write_text("import torch\nx = torch.fft.rfft(y)\n", encoding="utf-8")
    assert main([str(marked)]) == 1
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n", encoding="utf-8")
    assert main([str(bad)]) == 2
    assert main([str(tmp_path / "missing.py")]) == 2


def test_the_translator_imports_no_torch():
    code = "import sys, burn_torch_check.port as p; p.translate_source('import torch\\nx = torch.ones(2)\\n'); " \
           "print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


GUIDE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "guides" / "porting-in-one-command.md"
_BLOCK = re.compile(r"<!-- (from|translated from|verification script of) (\S+)(?: as (\S+))? -->\n```python\n(.*?)```", re.S)


def _lines(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines())


def test_the_guides_before_and_after_code_is_the_program_and_what_the_translator_writes():
    blocks = _BLOCK.findall(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    root = GUIDE.parent.parent.parent
    for kind, path, name, code in blocks:
        source = (root / path).read_text(encoding="utf-8")
        if kind == "from":
            text = source
        elif kind == "translated from":
            text = translate_source(source).code
        else:
            original = pathlib.Path(name)
            text = script(original, original.with_name(original.stem + "_port.py"), source)
        assert _lines(code) in _lines(text), code
