"""The checker finds torch BatchNorm layers that track running statistics (the
batch_norm_running_var entry): built directly, imported by name or passed as a norm_layer."""
from burn_torch_check import check_source


def hits(src: str) -> list[int]:
    return [f.line for f in check_source(src, "x.py") if f.entry.id == "batch_norm_running_var"]


def test_a_batch_norm_layer_is_reported():
    assert hits("import torch.nn as nn\nbn = nn.BatchNorm2d(3)\n") == [2]


def test_a_batch_norm_passed_as_a_norm_layer_is_reported():
    assert hits("import torch.nn as nn\ndef block(norm_layer=nn.BatchNorm2d):\n    return norm_layer(3)\n") == [2]


def test_a_name_imported_from_torch_nn_is_reported():
    assert hits("from torch.nn import BatchNorm1d\nbn = BatchNorm1d(4)\n") == [2]


def test_functional_batch_norm_is_reported():
    assert hits("import torch.nn.functional as F\ny = F.batch_norm(x, m, v, training=True)\n") == [2]


def test_without_running_statistics_nothing_is_reported():
    assert hits("import torch.nn as nn\nbn = nn.BatchNorm2d(3, track_running_stats=False)\n") == []


def test_an_isinstance_check_is_not_reported():
    src = "import torch.nn as nn\nif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):\n    pass\n"
    assert hits(src) == []


def test_torch_code_beside_a_port_is_left_alone():
    src = "import torch.nn as nn\nimport burn_torch\nreference = nn.BatchNorm2d(3)\n"
    assert hits(src) == []
