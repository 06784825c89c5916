"""The one mapping table: each PyTorch idiom the translator knows, with its burn_torch translation
or the reason it is left in place, keyed by the checker's catalog entry.

A ``Row`` names the catalog entry (``entry``, whose ``BTnnn`` code the checker reports for
the same idiom), the PyTorch idiom as written, the output template (``.template``), an
example line and its exact translation (``tests/test_port_table.py`` checks both directions:
the checker flags the example under the row's code, the translator writes the expected line)
and, for the mutation test, a deliberately wrong template and the probe model that
``verify_port`` (or the side-by-side training check) runs to catch it. A row with ``left`` set
is an idiom whose meaning burn_torch cannot keep: the translator leaves the line as it was,
marked ``# burn-torch-port: BTnnn <left>``.

The rules that recognise each idiom are in ``.rules`` (one per row, by id); this module is
data only, torch-free.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..catalog import entry


@dataclass(frozen=True)
class Row:
    """One idiom. ``section`` is ``module`` (layers and containers in ``__init__``),
    ``forward`` (tensor code), ``loss`` or ``loop`` (optimizers, the step, evaluation, saving);
    ``burn`` is the output template (empty for a left row); ``note`` is written beside a
    translation whose Burn behaviour still differs in a way the port should know."""

    id: str
    section: str
    entry: str | None
    torch: str
    burn: str = ""
    left: str = ""
    note: str = ""
    example: str = ""
    expected: str = ""
    mutant: str | None = None
    probe: str = ""

    @property
    def code(self) -> str:
        """The checker's code of the row's catalog entry (``BT405``); empty for a row whose idiom
        is a plain rename the catalog does not list (``F.relu`` → ``nn.relu``)."""
        return entry(self.entry).code if self.entry else ""

    def marker(self, why: str | None = None) -> str:
        """The comment a left line carries."""
        return " ".join(filter(None, ("# burn-torch-port:", self.code, why or self.left)))


def _layer(id, torch, burn, example, expected, mutant, probe, entry="module_constructor_arguments", note=""):
    return Row(id, "module", entry, torch, burn, note=note, example=example, expected=expected,
               mutant=mutant, probe=probe)


def _fwd(id, entry, torch, burn, example, expected, mutant, probe="dense", section="forward"):
    return Row(id, section, entry, torch, burn, example=example, expected=expected, mutant=mutant,
               probe=probe)


def _left(id, section, entry, torch, why, example=""):
    return Row(id, section, entry, torch, left=why, example=example)


_DEV = "{device}"
ROWS: tuple[Row, ...] = (
    # ------------------------------------------------------------------ layers ----
    _layer("linear", "nn.Linear(in, out, bias=True)",
           "nn.LinearConfig({in_features}, {out_features})<?.with_bias({bias})?>.init(" + _DEV + ")",
           "self.fc = nn.Linear(4, 3, bias=False)",
           "self.fc = nn.LinearConfig(4, 3).with_bias(False).init(device)",
           "nn.LinearConfig({out_features}, {in_features}).init(" + _DEV + ")", "linear"),
    _layer("conv1d", "nn.Conv1d(in, out, k, stride, padding, dilation, groups, bias)",
           "nn.Conv1dConfig({in_channels}, {out_channels}, {kernel_size})<?.with_stride({stride})?>"
           "<?.with_padding(nn.PaddingConfig1d.explicit({padding}))?><?.with_dilation({dilation})?>"
           "<?.with_groups({groups})?><?.with_bias({bias})?>.init(" + _DEV + ")",
           "self.conv = nn.Conv1d(2, 4, 3, padding=1)",
           "self.conv = nn.Conv1dConfig(2, 4, 3).with_padding(nn.PaddingConfig1d.explicit(1)).init(device)",
           "nn.Conv1dConfig({in_channels}, {out_channels}, {kernel_size}).init(" + _DEV + ")", "conv1d"),
    _layer("conv2d", "nn.Conv2d(in, out, k, stride, padding, dilation, groups, bias)",
           "nn.Conv2dConfig([{in_channels}, {out_channels}], {kernel_size})<?.with_stride({stride})?>"
           "<?.with_padding({padding})?><?.with_dilation({dilation})?><?.with_groups({groups})?>"
           "<?.with_bias({bias})?>.init(" + _DEV + ")",
           "self.conv = nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1)",
           "self.conv = nn.Conv2dConfig([1, 4], [3, 3]).with_stride([2, 2]).with_padding("
           "nn.PaddingConfig2d.explicit(1, 1)).init(device)",
           "nn.Conv2dConfig([{in_channels}, {out_channels}], {kernel_size})<?.with_stride({stride})?>"
           ".init(" + _DEV + ")", "conv2d"),
    _layer("conv_transpose2d", "nn.ConvTranspose2d(in, out, k, stride, padding, output_padding)",
           "nn.ConvTranspose2dConfig([{in_channels}, {out_channels}], {kernel_size})"
           "<?.with_stride({stride})?><?.with_padding({padding})?><?.with_padding_out({output_padding})?>"
           "<?.with_groups({groups})?><?.with_bias({bias})?><?.with_dilation({dilation})?>.init(" + _DEV + ")",
           "self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)",
           "self.up = nn.ConvTranspose2dConfig([4, 2], [3, 3]).with_stride([2, 2]).with_padding([1, 1]).init(device)",
           "nn.ConvTranspose2dConfig([{in_channels}, {out_channels}], {kernel_size})<?.with_stride({stride})?>"
           ".init(" + _DEV + ")", "image4"),
    _layer("batch_norm", "nn.BatchNorm1d/2d(n, eps, momentum)",
           "nn.BatchNormConfig({num_features})<?.with_epsilon({eps})?><?.with_momentum({momentum})?>"
           ".with_unbiased_running_var(True).init(" + _DEV + ")",
           "self.bn = nn.BatchNorm2d(4, momentum=0.2)",
           "self.bn = nn.BatchNormConfig(4).with_momentum(0.2).with_unbiased_running_var(True).init(device)",
           "nn.BatchNormConfig({num_features}).with_epsilon(0.1).init(" + _DEV + ")", "image4", entry=None),
    _layer("layer_norm", "nn.LayerNorm(d, eps, bias)",
           "nn.LayerNormConfig({normalized_shape})<?.with_epsilon({eps})?><?.with_bias({bias})?>.init(" + _DEV + ")",
           "self.ln = nn.LayerNorm(4, eps=1e-6)",
           "self.ln = nn.LayerNormConfig(4).with_epsilon(1e-6).init(device)",
           "nn.LayerNormConfig({normalized_shape}).with_epsilon(0.5).init(" + _DEV + ")", "linear"),
    _layer("group_norm", "nn.GroupNorm(groups, channels, eps, affine)",
           "nn.GroupNormConfig({num_groups}, {num_channels})<?.with_epsilon({eps})?><?.with_affine({affine})?>"
           ".init(" + _DEV + ")",
           "self.gn = nn.GroupNorm(2, 4)", "self.gn = nn.GroupNormConfig(2, 4).init(device)",
           "nn.GroupNormConfig(1, {num_channels}).init(" + _DEV + ")", "image4"),
    _layer("embedding", "nn.Embedding(n, d)",
           "nn.EmbeddingConfig({num_embeddings}, {embedding_dim}).init(" + _DEV + ")",
           "self.emb = nn.Embedding(10, 4)", "self.emb = nn.EmbeddingConfig(10, 4).init(device)",
           "nn.EmbeddingConfig({embedding_dim}, {num_embeddings}).init(" + _DEV + ")", "embedding"),
    _layer("lstm", "nn.LSTM(in, hidden, bias=True, batch_first=False)  (one layer)",
           "nn.LstmConfig({input_size}, {hidden_size}, {bias}).with_batch_first({batch_first}).init(" + _DEV + ")",
           "self.rnn = nn.LSTM(4, 3)",
           "self.rnn = nn.LstmConfig(4, 3, True).with_batch_first(False).init(device)",
           "nn.LstmConfig({input_size}, {hidden_size}, {bias}).init(" + _DEV + ")", "lstm",
           entry="lstm_batch_first"),
    _layer("lstm_layers", "nn.LSTM(in, hidden, num_layers, dropout=, batch_first=, bidirectional=)",
           "StackedLstm([nn.{config}({input_size} if k == 0 else {width}, {hidden_size}, {bias})"
           ".with_batch_first({batch_first}).init(" + _DEV + ") for k in range({num_layers})], {dropout}, "
           "batch_first={batch_first})",
           "self.rnn = nn.LSTM(4, 3, 2)",
           "self.rnn = StackedLstm([nn.LstmConfig(4 if k == 0 else 3, 3, True).with_batch_first(False).init(device) "
           "for k in range(2)], 0.0, batch_first=False)",
           "StackedLstm([nn.{config}({input_size} if k == 0 else {width}, {hidden_size}, {bias})"
           ".init(" + _DEV + ") for k in range({num_layers})], {dropout}, batch_first=True)", "lstm",
           entry="lstm_config_bias_argument"),
    _layer("gru", "nn.GRU(in, hidden, num_layers, bias, batch_first, dropout)",
           "StackedGru([nn.GruConfig({input_size} if k == 0 else {hidden_size}, {hidden_size}, {bias})"
           ".init(" + _DEV + ") for k in range({num_layers})], {dropout}, batch_first={batch_first})",
           "self.rnn = nn.GRU(4, 3)",
           "self.rnn = StackedGru([nn.GruConfig(4 if k == 0 else 3, 3, True).init(device) for k in range(1)], "
           "0.0, batch_first=False)",
           "StackedGru([nn.GruConfig({input_size} if k == 0 else {hidden_size}, {hidden_size}, {bias})"
           ".init(" + _DEV + ") for k in range({num_layers})], {dropout}, batch_first=True)", "lstm",
           entry="gru_forward_returns_output"),
    _layer("rnn", "nn.RNN(in, hidden, num_layers, nonlinearity, bias, batch_first, dropout)",
           "StackedRnn([nn.RnnConfig({input_size} if k == 0 else {hidden_size}, {hidden_size}, {bias})"
           ".with_batch_first({batch_first})<?.with_hidden_activation({activation})?>.init(" + _DEV + ") "
           "for k in range({num_layers})], {dropout}, batch_first={batch_first})",
           "self.rnn = nn.RNN(4, 3, nonlinearity='relu')",
           "self.rnn = StackedRnn([nn.RnnConfig(4 if k == 0 else 3, 3, True).with_batch_first(False)"
           ".with_hidden_activation(nn.ActivationConfig.relu()).init(device) for k in range(1)], 0.0, "
           "batch_first=False)",
           "StackedRnn([nn.RnnConfig({input_size} if k == 0 else {hidden_size}, {hidden_size}, {bias})"
           ".with_batch_first({batch_first}).init(" + _DEV + ") for k in range({num_layers})], {dropout}, "
           "batch_first={batch_first})", "lstm", entry=None),
    _layer("dropout", "nn.Dropout(p=0.5)", "nn.DropoutConfig({p}).init()",
           "self.drop = nn.Dropout()", "self.drop = nn.DropoutConfig(0.5).init()",
           None, "", entry=None),

    _layer("activation_layer", "nn.ReLU() / nn.Sigmoid() / nn.Tanh() / nn.GELU() / nn.SiLU()",
           "nn.{burn_class}()", "self.act = nn.ReLU()", "self.act = nn.Relu()", "nn.Tanh()", "linear", entry=None),

    _layer("leaky_relu_layer", "nn.LeakyReLU(negative_slope=0.01)",
           "nn.LeakyReluConfig({negative_slope}).init()",
           "self.act = nn.LeakyReLU(0.2)", "self.act = nn.LeakyReluConfig(0.2).init()",
           "nn.LeakyReluConfig(0.01).init()", "linear", entry=None),

    _layer("max_pool2d", "nn.MaxPool2d(k, stride=None, padding=0)",
           "nn.MaxPool2dConfig({kernel_size}).with_strides({stride})<?.with_padding({padding})?>"
           "<?.with_dilation({dilation})?><?.with_ceil_mode({ceil_mode})?>.init()",
           "self.pool = nn.MaxPool2d(2)", "self.pool = nn.MaxPool2dConfig([2, 2]).with_strides([2, 2]).init()",
           "nn.MaxPool2dConfig({kernel_size}).with_strides([1, 1]).init()", "conv2d"),
    _layer("avg_pool2d", "nn.AvgPool2d(k, stride=None, padding=0)",
           "nn.AvgPool2dConfig({kernel_size}).with_strides({stride})<?.with_padding({padding})?>"
           "<?.with_count_include_pad({count_include_pad})?><?.with_ceil_mode({ceil_mode})?>.init()",
           "self.pool = nn.AvgPool2d(2)", "self.pool = nn.AvgPool2dConfig([2, 2]).with_strides([2, 2]).init()",
           "nn.AvgPool2dConfig({kernel_size}).with_strides([1, 1]).init()", "conv2d"),
    _layer("adaptive_avg_pool2d", "nn.AdaptiveAvgPool2d(size)",
           "nn.AdaptiveAvgPool2dConfig({output_size}).init()",
           "self.pool = nn.AdaptiveAvgPool2d((1, 1))", "self.pool = nn.AdaptiveAvgPool2dConfig([1, 1]).init()",
           "nn.AdaptiveAvgPool2dConfig([2, 2]).init()", "conv2d"),
    _layer("flatten_layer", "nn.Flatten(start_dim=1, end_dim=-1)", "Flatten({start_dim}, {end_dim})",
           "self.flat = nn.Flatten()", "self.flat = Flatten(1, -1)", "Flatten(0, -1)", "conv2d", entry=None),

    _layer("identity", "nn.Identity()", "Identity()", "self.skip = nn.Identity()", "self.skip = Identity()",
           None, "", entry=None),

    _layer("sequential", "nn.Sequential(a, b, ...)", "Sequential([{layers}])",
           "self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())",
           "self.body = Sequential([nn.LinearConfig(4, 4).init(device), nn.Relu()])",
           "Sequential([{layers}][:1])", "sequential"),
    Row("to_torch", "loop", "mixing_torch_tensors", "torchvision.utils.save_image(x, ...) on a port's tensor",
        "{call}", example="", expected=""),
    _layer("module_list", "nn.ModuleList(iterable)", "list({modules})",
           "self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])",
           "self.blocks = list([nn.LinearConfig(4, 4).init(device) for _ in range(2)])",
           "list({modules})[:1]", "module_list"),
    _layer("module_dict", "nn.ModuleDict(mapping)", "dict({modules})",
           "self.parts = nn.ModuleDict(dict(fc=nn.Linear(4, 4)))",
           "self.parts = dict(dict(fc=nn.LinearConfig(4, 4).init(device)))",
           None, ""),
    _layer("own_module", "MyBlock(args)  (a module class of the file)", "{call}",
           "self.block = Block(4)", "self.block = Block(4, device=device)", None, "", entry=None),

    Row("parameter", "module", "parameter_vs_param", "nn.Parameter(t, requires_grad=True)",
        "Param({data}<?, require_grad={requires_grad}?>)",
        example="self.scale = nn.Parameter(torch.ones(4))",
        expected="self.scale = Param(Tensor.ones([4], device))",
        mutant="Param({data}, require_grad=False)", probe="scale"),
    Row("buffer", "module", "buffers", "self.register_buffer(name, t)",
        "self.{name} = Param({tensor}, require_grad=False)",
        example="self.register_buffer('shift', torch.zeros(4))",
        expected="self.shift = Param(Tensor.zeros([4], device), require_grad=False)",
        mutant=None),
    _left("weight_tying", "module", "weight_tying", "self.a.weight = self.b.weight",
          "a Param reachable at two paths makes from_grads and optimizer steps raise: keep one Param "
          "and use it twice (x.matmul(param.val().transpose()))",
          "self.decoder.weight = self.encoder.weight"),
    _left("torch_subclass", "module", "module_constructor_arguments", "class M(nn.Transformer): ...",
          "a subclass of a torch layer other than nn.Module keeps torch's forward: derive from Module "
          "and hold the layer as a field"),
    _left("init_functions", "module", "module_apply_init", "nn.init.*_(...) / module.apply(fn)",
          "in-place initialisation has no counterpart: set the layer's initializer "
          "(XxxConfig(...).with_initializer(...)) or load the torch weights",
          "nn.init.zeros_(self.fc.bias)"),
    # ------------------------------------------------------------------ forward ----
    _fwd("module_call", "module_call", "layer(x)", "{module}.forward({args})",
         "y = self.fc(x)", "y = self.fc.forward(x)", "{args}"),
    _fwd("param_value", None, "self.weight (a Parameter) in an expression", "{param}.val()",
         "y = x * self.scale", "y = x * self.scale.val()", "{param}.val().detach()", "parameter"),
    _fwd("optional_param_value", None, "self.bias (a Parameter or None) in an expression",
         "({param}.val() if {param} is not None else None)", "y = F.layer_norm(x, (4,), self.scale, self.bias)",
         "y = module_ops.layer_norm(x, self.scale.val(), (self.bias.val() if self.bias is not None else None), 1e-05)",
         None),
    _fwd("activation", None, "F.relu(x) / torch.sigmoid(x) / x.relu() ...",
         "nn.{function}({input})", "y = F.relu(x)", "y = nn.relu(x)", "nn.sigmoid({input})"),
    _fwd("softmax", None, "F.softmax(x, dim) / F.log_softmax / x.softmax(dim)",
         "nn.{function}({input}, {dim})", "y = F.log_softmax(x, dim=1)", "y = nn.log_softmax(x, 1)",
         "nn.{function}({input}, 0)"),
    _fwd("leaky_relu", None, "F.leaky_relu(x, slope=0.01)", "nn.leaky_relu({input}, {negative_slope})",
         "y = F.leaky_relu(x, 0.2)", "y = nn.leaky_relu(x, 0.2)", "nn.leaky_relu({input}, 0.01)"),
    _fwd("reshape", "renamed_methods", "x.view(*shape) / x.reshape(*shape)", "{x}.reshape({shape})",
         "y = x.view(-1, 12)", "y = x.reshape([-1, 12])", "{x}.swap_dims(0, 1).reshape({shape})"),
    _fwd("size", "shape_is_a_method", "x.size() / x.size(d)", "{x}.dims()<?[{dim}]?>",
         "y = x * x.size(1)", "y = x * x.dims()[1]", "{x}.dims()<?[{dim} - 1]?>"),
    _fwd("shape", "shape_is_a_method", "x.shape", "{x}.dims()",
         "y = x * x.shape[1]", "y = x * x.dims()[1]", "{x}.dims()[1:]"),
    _fwd("rank", "renamed_methods", "x.dim()", "{x}.rank()", "y = x * x.dim()", "y = x * x.rank()", "({x}.rank() - 1)"),
    _fwd("numel", "renamed_methods", "x.numel()", "{x}.shape().num_elements()",
         "y = x * x.numel()", "y = x * x.shape().num_elements()", "{x}.dims()[0]"),
    _fwd("expand", None, "x.expand(*sizes) / x.repeat(*sizes)", "{x}.{method}({sizes})",
         "y = x.repeat(1, 2, 1)", "y = x.repeat([1, 2, 1])", "{x}.{method}([2] + {sizes}[1:])"),
    _fwd("transpose", "transpose_swap_dims", "x.transpose(a, b)", "{x}.swap_dims({dim0}, {dim1})",
         "y = x.transpose(0, 1)", "y = x.swap_dims(0, 1)", "{x}.transpose()"),
    _fwd("permute", None, "x.permute(*dims)", "{x}.permute({dims})",
         "y = x.permute(2, 0, 1)", "y = x.permute([2, 0, 1])", "{x}.permute({dims}[::-1])"),
    _fwd("contiguous", "renamed_methods", "x.contiguous()", "{x}", "y = x.contiguous()", "y = x", None),
    _fwd("unsqueeze", "unsqueeze_takes_rank", "x.unsqueeze(d)", "{x}.unsqueeze_dim({dim})",
         "y = x.unsqueeze(1)", "y = x.unsqueeze_dim(1)", "{x}.unsqueeze({dim})"),
    _fwd("squeeze", None, "x.squeeze(d) / x.squeeze()", "{x}.{method}(<?{dim}?>)",
         "y = x.unsqueeze(0).squeeze(0)", "y = x.unsqueeze_dim(0).squeeze_dim(0)", "{x}<?.squeeze_dim({dim} + 1)?>"),
    _fwd("sum_dim", "sum_dim_keeps_dim", "x.sum(d, keepdim=False)", "{x}.sum_dim({dim})<?.squeeze_dim({squeeze})?>",
         "y = x.sum(1)", "y = x.sum_dim(1).squeeze_dim(1)", "{x}.sum_dim({dim})"),
    _fwd("mean_dim", "mean_dim_keeps_dim", "x.mean(d, keepdim=False)", "{x}.mean_dim({dim})<?.squeeze_dim({squeeze})?>",
         "y = x.mean(1)", "y = x.mean_dim(1).squeeze_dim(1)", "{x}.mean_dim({dim})"),
    _fwd("argmax", "argmax_keeps_dim", "x.argmax(d, keepdim=False)", "{x}.{method}({dim})<?.squeeze_dim({squeeze})?>",
         "y = x.argmax(dim=1)", "y = x.argmax(1).squeeze_dim(1)", "{x}.{method}({dim})", "index"),
    _fwd("max_dim", "max_dim_keeps_dim", "values, indices = torch.max(x, d)",
         "{targets} = (t.squeeze_dim({dim}) for t in {x}.{method}_dim_with_indices({dim}))",
         "v, y = torch.max(x, 1)", "v, y = (t.squeeze_dim(1) for t in x.max_dim_with_indices(1))",
         "{targets} = {x}.{method}_dim_with_indices({dim})", "index"),
    _fwd("cat", None, "torch.cat(tensors, dim=0) / torch.stack", "Tensor.{function}({tensors}, {dim})",
         "y = torch.cat([x, x], dim=1)", "y = Tensor.cat([x, x], 1)", "Tensor.{function}({tensors}, 0)"),
    _fwd("split", None, "x.split(size, dim=0) / x.chunk(n, dim=0)", "{x}.{method}({size}, {dim})",
         "y, _ = x.chunk(2, dim=2)", "y, _ = x.chunk(2, 2)", "{x}.{method}({size}, 0)"),
    _fwd("flatten", None, "torch.flatten(x, start=0, end=-1) / x.flatten(start)",
         "{x}.flatten({start_dim}, {end_dim})", "y = torch.flatten(x, 1)", "y = x.flatten(1, -1)",
         "{x}.flatten(0, -1)"),
    _fwd("matmul", None, "torch.matmul(a, b) / torch.bmm / torch.mm", "{input}.matmul({other})",
         "y = torch.bmm(x, x.transpose(1, 2))", "y = x.matmul(x.swap_dims(1, 2))", "{other}.matmul({input})"),
    _fwd("pow", "pow_operator", "x ** n / x.pow(n) / torch.pow(x, n)", "{x}.{method}({exponent})",
         "y = x ** 2", "y = x.powi_scalar(2)", "{x}.{method}(1)"),
    _fwd("unary_function", None, "torch.exp(x) / torch.log / torch.sqrt / torch.abs ...",
         "{input}.{method}()", "y = torch.exp(x)", "y = x.exp()", "{input}.log()"),
    _fwd("tril", None, "torch.tril(x, diagonal=0) / torch.triu", "{x}.{method}({diagonal})",
         "y = torch.triu(x, diagonal=1)", "y = x.triu(1)", "{x}.{method}(0)"),
    _fwd("item", "renamed_methods", "x.item()", "{x}.into_scalar()", "y = x * x.sum().item()",
         "y = x * x.sum().into_scalar()", None),
    _fwd("data", "tensor_data", "x.data", "{x}.detach()", "y = x * x.data", "y = x * x.detach()", "{x}"),
    _fwd("cast", "renamed_methods", "x.float() / x.long() / x.int()", "{x}.{method}()",
         "y = x.long()", "y = x.int()", None, "index"),
    _fwd("compare", "comparison_operators", "a == b / a.eq(b) / a < b ...", "{left}.{method}({right})",
         "y = x > 0", "y = x.greater_elem(0)", "{left}.lower_equal<?{method}?>({right})", "index"),
    _fwd("masked_fill", "renamed_methods", "x.masked_fill(mask, value)", "{x}.mask_fill({mask}, {value})",
         "y = x.masked_fill(x > 0, 0.0)", "y = x.mask_fill(x.greater_elem(0), 0.0)",
         "{x}.mask_fill({mask}.bool_not(), {value})"),
    _fwd("where", "where_argument_order", "torch.where(cond, a, b)", "{other}.mask_where({condition}, {input})",
         "y = torch.where(x > 0, x, x * 2)", "y = (x * 2).mask_where(x.greater_elem(0), x)",
         "{input}.mask_where({condition}, {other})"),
    _fwd("clamp", None, "x.clamp(min, max)", "{x}.{method}({bounds})",
         "y = x.clamp(min=0.0)", "y = x.clamp_min(0.0)", "{x}.clamp_max({bounds})"),
    _fwd("slice", "indexing", "x[a:b, i]", "{x}.slice([{ranges}])<?.squeeze_dims([{squeeze}])?>",
         "y = x[:, -1]", "y = x.slice([slice(None), -1]).squeeze_dims([1])", "{x}.slice([{ranges}])"),
    _fwd("creation", None, "torch.zeros(*shape, device=) / ones / randn / rand / full / arange",
         "Tensor.{function}({args})", "y = x + torch.ones(4)", "y = x + Tensor.ones([4], DEVICE)", None),
    _fwd("like", None, "torch.zeros_like(x) / torch.ones_like(x) / randn_like",
         "{x}.{method}(<?{extra}?>)", "y = x + torch.ones_like(x)", "y = x + x.ones_like()", "{x}.zeros_like()"),
    _fwd("to_device", None, "x.to(device) / x.cuda()  (a tensor of the port)", "{x}.to_device({device})",
         "y = x.to(device)", "y = x.to_device(device)", None),
    _fwd("max_pool2d_function", None, "F.max_pool2d(x, k, stride=None, padding=0)",
         "module_ops.max_pool2d({input}, {kernel_size}, {stride}, {padding}, [1, 1])",
         "y = F.max_pool2d(x, 2)", "y = module_ops.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1])",
         "module_ops.max_pool2d({input}, {kernel_size}, [1, 1], {padding}, [1, 1])", "image"),
    _fwd("avg_pool2d_function", None, "F.avg_pool2d(x, k, stride=None, padding=0)",
         "module_ops.avg_pool2d({input}, {kernel_size}, {stride}, {padding}, True)",
         "y = F.avg_pool2d(x, 2)", "y = module_ops.avg_pool2d(x, [2, 2], [2, 2], [0, 0], True)",
         "module_ops.avg_pool2d({input}, {kernel_size}, [1, 1], {padding}, True)", "image"),
    _fwd("layer_norm_function", None, "F.layer_norm(x, shape, weight, bias, eps)",
         "module_ops.layer_norm({input}, {weight}, {bias}, {eps})",
         "y = F.layer_norm(x, (4,), self.scale, None, 1e-5)",
         "y = module_ops.layer_norm(x, self.scale.val(), None, 1e-5)",
         "module_ops.layer_norm({input}, {weight}, {bias}, 0.5)", "parameter"),
    _left("lstm_state", "forward", "lstm_state_order", "out, (h, c) = lstm(x, (h0, c0))",
          "Burn's recurrent layers take and return per-layer states (LstmState(cell, hidden)), "
          "not torch's stacked (h, c): rewrite the state handling", "out, (h, c) = self.rnn(x)"),
    _left("attention_function", "forward", "attention_mask_polarity", "F.scaled_dot_product_attention(q, k, v, mask)",
          "module_ops.attention(q, k, v, mask) drops positions where mask is True (torch keeps "
          "them): build the mask with the opposite polarity",
          "y = F.scaled_dot_product_attention(x, x, x, attn_mask=mask)"),
    _left("topk", "forward", "topk_indices", "values, indices = x.topk(k)",
          "Tensor.topk is the values only: use topk_with_indices(k, dim) and mind the kept dims",
          "v, i = x.topk(2)"),
    _left("dropout_function", "forward", None, "F.dropout(x, p, training)",
          "burn_torch has no functional dropout bound to a training flag: add a "
          "DropoutConfig(p).init() field and call its forward", "y = F.dropout(x, 0.5)"),
    _left("training_flag", "forward", None, "self.training",
          "modules have no training attribute: a module's mode is its Dropout/BatchNorm layers' "
          "(valid() turns them off)", "y = x if self.training else x * 2"),
    # ------------------------------------------------------------------ losses ----
    _fwd("cross_entropy", None, "nn.CrossEntropyLoss() / F.cross_entropy(x, y)",
         "nn.CrossEntropyLossConfig()<?.with_smoothing({label_smoothing})?>.init(" + _DEV + ")<?.forward({args})?>",
         "loss = F.cross_entropy(x, t)", "loss = nn.CrossEntropyLossConfig().init(DEVICE).forward(x, t)",
         "nn.CrossEntropyLossConfig().with_smoothing(0.5).init(" + _DEV + ")<?.forward({args})?>", "loss",
         section="loss"),
    _fwd("nll_loss", "nll_loss", "F.nll_loss(log_probs, y) / nn.NLLLoss()  (on log_softmax outputs)",
         "nn.CrossEntropyLossConfig().init(" + _DEV + ")<?.forward({args})?>",
         "loss = F.nll_loss(F.log_softmax(x, dim=1), t)",
         "loss = nn.CrossEntropyLossConfig().init(DEVICE).forward(nn.log_softmax(x, 1), t)",
         "nn.CrossEntropyLossConfig().with_logits(False).init(" + _DEV + ")<?.forward({args})?>", "loss",
         section="loss"),
    _fwd("mse_loss", None, "nn.MSELoss() / F.mse_loss(a, b, reduction)",
         "nn.MseLoss()<?.forward({args})?>",
         "loss = F.mse_loss(x, t.float())", "loss = nn.MseLoss().forward(x, t.float())",
         "nn.MseLoss()<?.forward({args}, nn.Reduction.SUM)?>", "loss", section="loss"),
    _left("bce_loss", "loss", None, "nn.BCELoss() / F.binary_cross_entropy(p, y)",
          "Burn's BinaryCrossEntropyLoss takes Int 0/1 targets (torch: float probabilities): for hard "
          "labels, BinaryCrossEntropyLossConfig()[.with_logits(True)].init(device).forward(p, y.int())",
          "loss = F.binary_cross_entropy_with_logits(x, t.float())"),
    _left("loss_reduction", "loss", "cross_entropy_ignore_index", "F.cross_entropy(x, y, ignore_index=/reduction=)",
          "Burn's loss has no such setting (ignore_index: pad_tokens count in the mean; reduction: "
          "mean only): compute it from the per-element loss",
          "loss = F.cross_entropy(x, t, ignore_index=0)"),
    # ------------------------------------------------------------------ the loop ----
    Row("optimizer", "loop", "optimizer_defaults", "torch.optim.Adam/AdamW/SGD/RMSprop/Adagrad(model.parameters(), lr, ...)",
        "{optimizer} = {config}.init()\n{lr_name} = {lr}",
        example="optimizer = torch.optim.Adam(model.parameters(), lr=0.01)",
        expected="optimizer = AdamConfig(epsilon=1e-08).init()\noptimizer_lr = 0.01",
        mutant="{optimizer} = {burn_default}.init()\n{lr_name} = {lr}", probe="optimizer"),
    Row("zero_grad", "loop", "no_zero_grad", "optimizer.zero_grad() / model.zero_grad()", "",
        example="optimizer.zero_grad()", expected="", mutant=None),
    Row("backward", "loop", "backward_returns_container", "loss.backward()", "grads = {loss}.backward()",
        example="loss.backward()", expected="grads = loss.backward()", mutant=None),
    Row("step", "loop", "optimizer_step_returns_module", "optimizer.step()",
        "{model} = {optimizer}.step({lr}, {model}, GradientsParams.from_grads(grads, {model}))",
        example="optimizer.step()",
        expected="model = optimizer.step(optimizer_lr, model, GradientsParams.from_grads(grads, model))",
        mutant="{optimizer}.step({lr}, {model}, GradientsParams.from_grads(grads, {model}))", probe="training"),
    Row("scheduler", "loop", None, "StepLR(opt, step_size, gamma) / ExponentialLR / CosineAnnealingLR",
        "{scheduler} = {config}.init()\n{lr_name} = {scheduler}.step()",
        example="scheduler = StepLR(optimizer, step_size=1, gamma=0.7)",
        expected="scheduler = StepLrSchedulerConfig(optimizer_lr, 1, 0.7).init()\noptimizer_lr = scheduler.step()",
        mutant="{scheduler} = {config}.init()", probe="training"),
    Row("scheduler_step", "loop", "lr_scheduler_per_iteration", "scheduler.step()", "{lr_name} = {scheduler}.step()",
        example="scheduler.step()", expected="optimizer_lr = scheduler.step()", mutant=None),
    Row("eval", "loop", "eval_is_valid", "model.eval()", "{model} = {model}.valid()",
        note="valid() also drops autodiff: call model = model.train() before training again",
        example="model.eval()", expected="model = model.valid()", mutant=None),
    Row("train", "loop", "train_returns_module", "model.train()", "{model} = {model}.train()",
        example="model.train()", expected="model = model.train()", mutant=None),
    Row("module_to_device", "loop", "module_to_device_fork", "model = Net().to(device)",
        "{constructor}", example="model = Net().to(device)", expected="model = Net(device=device)", mutant=None),
    Row("batch_from_torch", "loop", "mixing_torch_tensors", "for x, y in loader: (torch batches)",
        "{names} = {conversions}", example="", expected="", mutant=None),
    Row("device", "loop", None, "torch.device(spec)", "Device({spec}).autodiff()",
        example="device = torch.device('cpu')", expected="device = Device('cpu').autodiff()", mutant=None),
    Row("seed", "loop", "seeding", "torch.manual_seed(s)", "torch.manual_seed({seed}); {device}.seed({seed})",
        example="torch.manual_seed(1)", expected="torch.manual_seed(1); DEVICE.seed(1)", mutant=None),
    Row("save", "loop", "load_state_dict", "torch.save(model.state_dict(), path)", "{model}.save_file({path})",
        example="torch.save(model.state_dict(), 'model.ckpt')", expected="model.save_file('model.ckpt')", mutant=None),
    Row("load", "loop", "load_state_dict", "model.load_state_dict(torch.load(path))",
        "{model} = {model}.load_file({path})",
        example="model.load_state_dict(torch.load('model.ckpt'))", expected="model = model.load_file('model.ckpt')",
        mutant=None),
    _left("clip_grad", "loop", "gradient_clipping_per_parameter", "torch.nn.utils.clip_grad_norm_(params, n)",
          "GradientClippingConfig.norm(n) clips each parameter's gradient, torch clips the global "
          "norm: scale the gradients yourself or accept per-parameter clipping",
          "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
    _left("optimizer_unsupported", "loop", "parameter_groups",
          "an optimizer burn_torch lacks, or one built on parameter groups",
          "no burn_torch optimizer with these settings (parameter groups, or an optimizer burn_torch "
          "does not have): pick a burn_torch optimizer config and one learning rate per step",
          "optimizer = torch.optim.SGD([{'params': model.parameters(), 'lr': 0.1}], lr=0.1)"),
    _left("optimizer_state", "loop", "optimizer_state_dict", "optimizer.state_dict() / param_groups",
          "optimizers have no state_dict/param_groups: save the optimizer's record, keep the "
          "learning rate in a variable", "state = optimizer.state_dict()"),
)

BY_ID: dict[str, Row] = {r.id: r for r in ROWS}
if len(BY_ID) != len(ROWS):  # pragma: no cover - a table edit error, caught on import
    raise ValueError("two mapping-table rows share an id")


@lru_cache(maxsize=None)
def row(row_id: str) -> Row:
    """The row ``row_id``. Raises KeyError for an unknown id."""
    return BY_ID[row_id]
