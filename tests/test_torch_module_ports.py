"""from_torch_module(model, device, classes={TorchClass: Port}): a model with its own forward
converts in one call, its children by attribute name, and trains as the torch model does.

The ResNet below follows torchvision's ``torchvision/models/resnet.py`` (pytorch/vision, read at
commit 054e54c): the same classes, attribute names and ``_make_layer`` structure (BasicBlock,
ResNet-18's ``[2, 2, 2, 2]``), with the widths divided by 8 to keep the test fast."""
import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch.interop import from_torch_module
from burn_torch.module import Module, Param
from burn_torch.compat import verify_port
from burn_torch.optim import SgdConfig

AD = Device.cpu().autodiff()
WIDTH = 8  # torchvision: 64


def conv3x3(in_planes, out_planes, stride=1):
    return torch.nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes, out_planes, stride=1):
    return torch.nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(torch.nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = torch.nn.BatchNorm2d(planes)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = torch.nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(torch.nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super().__init__()
        self.inplanes = WIDTH
        self.conv1 = torch.nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(self.inplanes)
        self.relu = torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, WIDTH, layers[0])
        self.layer2 = self._make_layer(block, 2 * WIDTH, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 4 * WIDTH, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 8 * WIDTH, layers[3], stride=2)
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(8 * WIDTH * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = torch.nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                             torch.nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _ in range(1, blocks)]
        return torch.nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        return self.fc(x.reshape(x.size(0), -1))


class PortBasicBlock(Module):
    def forward(self, x):
        identity = x
        out = self.relu.forward(self.bn1.forward(self.conv1.forward(x)))
        out = self.bn2.forward(self.conv2.forward(out))
        if self.downsample is not None:
            identity = self.downsample.forward(x)
        return self.relu.forward(out + identity)


class PortResNet(Module):
    def forward(self, x):
        x = self.maxpool.forward(self.relu.forward(self.bn1.forward(self.conv1.forward(x))))
        x = self.layer4.forward(self.layer3.forward(self.layer2.forward(self.layer1.forward(x))))
        x = self.avgpool.forward(x)
        return self.fc.forward(x.reshape([x.dims()[0], -1]))


PORTS = {ResNet: PortResNet, BasicBlock: PortBasicBlock}


def _resnet18():
    torch.manual_seed(0)
    return ResNet(BasicBlock, [2, 2, 2, 2])


def _batch(step):
    g = torch.Generator().manual_seed(step)
    return torch.randn(4, 3, 32, 32, generator=g), torch.randint(0, 10, (4,), generator=g)


def test_a_resnet_converts_in_one_call_with_its_children_by_name():
    port = from_torch_module(_resnet18(), AD, PORTS, batch_norm_running_var="torch")
    assert isinstance(port, PortResNet) and isinstance(port.layer2.layers[0], PortBasicBlock)
    assert port.layer1.layers[0].downsample is None and port.layer2.layers[0].stride == 2
    assert isinstance(port.layer2.layers[0].downsample.layers[1], nn.BatchNorm)


def test_the_converted_resnet_computes_what_torch_computes():
    model = _resnet18().eval()
    port = from_torch_module(model, AD, PORTS, batch_norm_running_var="torch").valid()
    x, _ = _batch(0)
    torch.testing.assert_close(port.forward(Tensor.from_data(x, AD.without_autodiff())).to_torch(),
                               model(x).detach(), rtol=1e-4, atol=1e-5)


def test_the_converted_resnet_tracks_torchs_running_statistics():
    model = _resnet18().train()
    port = from_torch_module(model, AD, PORTS, batch_norm_running_var="torch")
    with torch.no_grad():
        for step in range(3):
            x, _ = _batch(step)
            model(x)
            port.forward(Tensor.from_data(x, AD))
    torch.testing.assert_close(port.layer3.layers[1].bn2.running_var.val().to_torch(),
                               model.layer3[1].bn2.running_var, rtol=1e-5, atol=1e-6)


def test_the_converted_resnet_trains_as_torchs_in_float64():
    # float32 runs of this net drift apart by ~1% within 3 SGD steps in either library: chaos
    model = _resnet18()
    port = from_torch_module(model, AD, PORTS, batch_norm_running_var="torch")
    report = verify_port(model, port, _batch(0), F.cross_entropy, nn.CrossEntropyLossConfig().init(AD).forward,
                         mode="train", steps=3, torch_optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                         burn_optimizer=SgdConfig(), train_batches=[_batch(k) for k in range(1, 4)],
                         float64=True, rtol=1e-9, atol=1e-10)
    assert report.passed, report.table()


def test_own_parameters_buffers_and_constants_keep_their_names():
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.tensor([2.0]))
            self.register_buffer("shift", torch.tensor([1.0]))
            self.inner = torch.nn.ReLU()
            self.mode, self._private = "relu", 1

    class PortScaled(Module):
        pass

    port = from_torch_module(Scaled(), AD, {Scaled: PortScaled})
    assert isinstance(port.scale, Param) and port.scale.is_trainable()
    assert isinstance(port.shift, Param) and not port.shift.is_trainable()
    assert isinstance(port.inner, nn.Relu) and port.mode == "relu" and not hasattr(port, "_private")


def test_a_mapping_to_something_else_than_a_module_class_is_refused():
    with pytest.raises(TypeError, match="the port of BasicBlock must be a burn_torch Module subclass"):
        from_torch_module(_resnet18(), AD, {ResNet: PortResNet, BasicBlock: dict})
