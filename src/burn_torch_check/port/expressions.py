"""The translator's expression rules: layer constructors, module calls, tensor methods, torch
functions, operators and subscripts, each rewritten through its mapping-table row (a mixin of
the transformer in ``.translate``). Torch-free."""
from __future__ import annotations

import ast
from typing import Mapping

import libcst as cst

from .args import Unsupported, arg_node, bind, int_literal, literal, pair, sequence
from .events import Event, Left
from .facts import TORCH_MODULE_METHODS
from .layers import LAYERS, layer_fields
from ..analysis import OPTIMIZER, SCHEDULER, UNKNOWN
from ..methods import stored as stored_methods

_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "sigmoid": "sigmoid", "tanh": "tanh", "silu": "silu",
                "softplus": "softplus", "elu": "elu", "mish": "mish", "selu": "selu", "relu6": "relu6"}
_SOFTMAX = {"softmax": "softmax", "log_softmax": "log_softmax"}
_UNARY = {"exp", "log", "sqrt", "abs", "cos", "sin", "floor", "ceil", "round", "log1p", "neg", "square",
          "recip", "erf", "sign", "tan", "cosh", "sinh"}
_SAME_METHODS = _UNARY | {"detach", "clone", "sum", "mean", "max", "min", "prod", "flip", "matmul", "tril",
                          "triu", "cumsum", "any", "all", "int", "float", "bool", "forward", "backward", "t"}
_CASTS = {"float": "float", "long": "int", "int": "int", "double": "float", "bool": "bool"}
_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "lower", "le": "lower_equal", "gt": "greater",
            "ge": "greater_equal"}
_COMPARE_OPS = {cst.Equal: "equal", cst.NotEqual: "not_equal", cst.LessThan: "lower",
                cst.LessThanEqual: "lower_equal", cst.GreaterThan: "greater", cst.GreaterThanEqual: "greater_equal"}
_CREATION = {"zeros", "ones", "randn", "rand", "full", "empty", "arange", "tensor", "eye"}
_TORCH_ONLY = stored_methods()["torch_only"] - stored_methods()["ambiguous"]
_NON_TENSOR_RESULTS = {"size", "item", "tolist", "dim", "numel", "dims", "into_scalar", "numpy", "shape"}
_KEEP_TORCH = ("torch.utils.", "torch.cuda.", "torch.no_grad", "torch.backends.", "torch.accelerator.",
               "torch.device", "torch.manual_seed", "torch.load", "torch.Generator", "torchvision.",
               "torch.set_", "torch.is_", "torch.inference_mode", "torch.enable_grad")

_METHOD_ROWS = {"view": "reshape", "reshape": "reshape", "transpose": "transpose", "size": "size",
                "sum": "sum_dim", "mean": "mean_dim", "argmax": "argmax", "split": "split", "chunk": "split"}


class ExpressionRules:
    """The rules that rewrite expressions; the transformer supplies ``code``, ``kind``, ``emit``..."""

    # ============================================================ expressions ====
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = original.attr.value
        value = original.value
        if updated.attr.value != name:  # an attribute named like a renamed import (torch.nn)
            updated = updated.with_changes(attr=original.attr)
        # self.<param> read in an expression: its value
        field_kind = self.facts.field(self.frame.cls, name) if isinstance(value, cst.Name) \
            and value.value == "self" and self.frame.cls else None
        if field_kind in ("param", "optional_param") and not self._is_target(original) \
                and not self._identity_test(original):
            row_id = "param_value" if field_kind == "param" else "optional_param_value"
            return self._expr(original, row_id, {"param": self.code(updated)})
        # self.<ModuleDict>.key
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self" \
                and self.facts.field(self.frame.cls, value.attr.value) == "dict":
            return cst.parse_expression(f'{self.code(updated.value)}["{name}"]')
        if name in ("shape", "data", "device", "T", "is_cuda") and self._tensor(original.value) \
                and not self._called(original):
            try:
                if name == "shape":
                    return self._expr(original, "shape", {"x": self.code(updated.value)})
                if name == "data":
                    return self._expr(original, "data", {"x": self.code(updated.value)})
                if name == "device":
                    self.rendered.append("")
                    return cst.parse_expression(f"{self.code(updated.value)}.device()")
                raise Left(None, f"tensor attribute .{name} has no table row")
            except Left as exc:
                self.leave_place(original, exc)
        if name == "param_groups" and self.kind(value) == OPTIMIZER:
            self.leave_place(original, Left("optimizer_state"))
        if name == "training" and isinstance(value, cst.Name) and value.value == "self" and self.frame.cls:
            self.leave_place(original, Left("training_flag"))
        return updated

    def _called(self, attr: cst.Attribute) -> bool:
        return attr in self._callees

    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(node.func)

    def _identity_test(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is an operand of ``is``/``is not`` (``self.bias is not None``)."""
        found = self.ast_of(node)
        parent = self.facts.analysis.parent.get(found) if found is not None else None
        return isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)

    def _is_target(self, node: cst.CSTNode) -> bool:
        found = self.ast_of(node)
        return found is not None and isinstance(getattr(found, "ctx", None), ast.Store)

    def _method_returns_tensor(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` calls a method of one of the file's module classes (on a module value)
        that returns a tensor (``model.decode(z)``)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and self.facts.is_module_kind(self.kind(node.func.value))):
            return False
        returns = self.facts.analysis.returns
        kinds = {returns.get(f"{cls}.{node.func.attr.value}") for cls in self.facts.module_classes} - {None}
        return bool(kinds) and all(self.facts.is_tensor_kind(k) for k in kinds)

    def _tensor(self, node: cst.CSTNode) -> bool:
        k = self.kind(node)
        if self.facts.is_tensor_kind(k) or self._method_returns_tensor(node):
            return True
        return k == UNKNOWN and self.frame.cls is not None and not (
            isinstance(node, cst.Name) and node.value == "self")

    def recv(self, node: cst.BaseExpression) -> str:
        """``node``'s source as a method receiver: parenthesized unless it is an atom."""
        text = self.code(node)
        compound = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation, cst.IfExp,
                    cst.Lambda)
        return f"({text})" if isinstance(node, compound) and not node.lpar else text

    def _expr(self, node: cst.CSTNode, row_id: str, fields: Mapping[str, str | None]) -> cst.BaseExpression:
        return cst.parse_expression(self.emit(node, row_id, fields))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        try:
            result = self._call(original, updated)
        except Left as exc:
            self.leave_place(original, exc)
            return updated
        except Unsupported as exc:
            row_id = self._row_for_unsupported(original)
            self.leave_place(original, Left(row_id, f"{exc}: no burn_torch counterpart with the same meaning"))
            return updated
        return updated if result is None else result

    def _row_for_unsupported(self, original: cst.Call) -> str | None:
        q = self.qual(original.func)
        if q in LAYERS:
            return LAYERS[q][0]
        if isinstance(original.func, cst.Attribute):
            return _METHOD_ROWS.get(original.func.attr.value)
        return None

    def _call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        q = self.qual(original.func)
        if q is not None:
            return self._qualified(q, original, updated)
        func = original.func
        if isinstance(func, cst.Name) and func.value not in self.facts.module_classes \
                and (self.facts.is_module_kind(self.kind(func)) or func.value in self.frame.modules):
            return self._module_call(original, updated, "module")
        if isinstance(func, cst.Name):
            return self._name_call(original, updated)
        if not isinstance(func, cst.Attribute):
            return None
        receiver = func.value
        method = func.attr.value
        rk = self.kind(receiver)
        module_field = self._module_field(func)
        if self.facts.is_module_kind(self.kind(func)) or module_field:
            return self._module_call(original, updated, module_field)
        if self.facts.is_module_kind(rk) or rk in (OPTIMIZER, SCHEDULER):
            return self._object_method(original, updated, method, rk)
        if self._tensor(receiver) or self._root_name(receiver) in self.frame.converted or (
                self.kind(receiver) == UNKNOWN and method in _TORCH_ONLY):
            return self._tensor_method(original, updated, method)
        return None

    def _module_field(self, func: cst.BaseExpression) -> str | None:
        """The field kind when ``func`` is ``self.<module field>`` (or a ModuleDict entry): a
        field assigned a module, or any attribute of a module class that is not one of its
        methods (a submodule received as an argument: calling its forward fails loudly if not)."""
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            kind = self.facts.field(self.frame.cls, func.attr.value)
            if kind is None and self.frame.cls and func.attr.value not in TORCH_MODULE_METHODS \
                    and not self._defines(self.frame.cls, func.attr.value):
                return "module"
            return kind if kind == "module" else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) \
                and isinstance(func.value.value, cst.Name) and func.value.value.value == "self" \
                and self.facts.field(self.frame.cls, func.value.attr.value) == "dict":
            return "module"
        return None

    # -------------------------------------------------------------- module calls ----
    def _module_call(self, original: cst.Call, updated: cst.Call, field_kind) -> cst.BaseExpression:
        args = list(updated.args)
        layer = self._layer_type(original.func)
        if layer in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN"):
            self._check_recurrent_use(original)
            if len(args) > 1:
                if not self._zero_state(original.args[1].value):
                    raise Left("lstm_state")
                args = args[:1]
        text = ", ".join(self.code(a.value) if a.keyword is None and not a.star
                         else self.code(a).rstrip(", ") for a in args)
        return self._expr(original, "module_call", {"module": self.code(updated.func), "args": text})

    def _defines(self, cls: str, method: str) -> bool:
        """Whether the file's class ``cls`` or one of its bases in the file defines ``method``."""
        node = self.facts.analysis.classes.get(cls)
        if node is None:
            return False
        if self.facts.analysis.defines(cls, method):
            return True
        return any(isinstance(b, ast.Name) and b.id != cls and self._defines(b.id, method) for b in node.bases)

    def _layer_type(self, func: cst.BaseExpression) -> str | None:
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        cls = self.facts.analysis.classes.get(self.frame.cls or "")
        if cls is None:
            return None
        found = None
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                    and node.targets[0].attr == func.attr.value and isinstance(node.value, ast.Call):
                q = self.facts.analysis.qualname(node.value.func)
                if q in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN") or found is None:
                    found = q if q in ("torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN") else found or q
        return found

    def _check_recurrent_use(self, original: cst.Call) -> None:
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node) if node is not None else None
        if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
                and len(parent.targets[0].elts) == 2 and isinstance(parent.targets[0].elts[1], ast.Tuple):
            raise Left("lstm_state")
        if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
                and len(parent.targets[0].elts) == 2 and isinstance(parent.targets[0].elts[1], ast.Name) \
                and parent.targets[0].elts[1].id != "_":
            raise Left("lstm_state", "the final state is Burn's (per layer), not torch's stacked "
                                     "(h, c): check how it is used")

    def _zero_state(self, state: cst.BaseExpression) -> bool:
        """Whether ``state`` is a tuple of names (or one name) assigned ``torch.zeros(...)`` in
        the enclosing function: then dropping it keeps the meaning (Burn's default is zeros)."""
        names = [e.value for e in state.elements] if isinstance(state, cst.Tuple) else [state]
        if not all(isinstance(n, cst.Name) for n in names) or self.frame.node is None:
            return False
        zeros = set()
        for node in ast.walk(self.frame.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                        and value.func.attr in ("to", "cuda"):
                    value = value.func.value
                if isinstance(value, ast.Call) and self.facts.analysis.qualname(value.func) == "torch.zeros":
                    zeros.add(node.targets[0].id)
        return all(n.value in zeros for n in names)

    def _name_call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        name = original.func.value
        if name in self.facts.module_classes:
            if any(a.keyword is not None and a.keyword.value == "device" for a in original.args) \
                    or self.device_at(original) == "DEVICE":
                return None  # the port's classes default to DEVICE
            args = [self.code(a).rstrip().rstrip(",") for a in updated.args]
            return self._expr(original, "own_module", {"call": f"{name}({', '.join([*args, 'device=' + self.frame.device])})"})
        effects = self.facts.effects.get(name)
        if effects is not None and effects.lr_params:
            fn = self.facts.functions[name]
            params = [a.arg for a in fn.args.args]
            extra = []
            for opt, lr in effects.lr_params.items():
                value = arg_node(original, params, opt)
                if not isinstance(value, cst.Name):
                    raise Left("step", f"pass the learning rate of {opt} as {lr}=")
                extra.append(f"{lr}={value.value}_lr")
            args = [self.code(a).rstrip().rstrip(",") for a in updated.args]
            self.record(Event(self.line(original), "translated", "step"))
            return cst.parse_expression(f"{name}({', '.join([*args, *extra])})")
        return None

    def _object_method(self, original, updated, method, rk) -> cst.BaseExpression | None:
        if self.facts.is_module_kind(rk):
            if method in ("to", "cuda", "cpu"):
                inner = original.func.value
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) \
                        and inner.func.value in self.facts.module_classes:
                    device = self.code(updated.args[0].value) if updated.args else "Device.cuda().autodiff()"
                    args = [self.code(a).rstrip().rstrip(",") for a in inner.args]
                    return self._expr(original, "module_to_device",
                                      {"constructor": f"{inner.func.value}({', '.join([*args, 'device=' + device])})"})
                raise Left("module_to_device", "a module's parameters move with to_device as "
                           "intermediates: build the module on the device (Net(..., device=device))")
            if method in ("parameters", "named_parameters", "state_dict") and self._argument_of_handled_call(original):
                return None
            if method in ("parameters", "named_parameters"):
                raise Left(None, "modules have no parameters(): params() / named_params() list Params")
            if method == "load_state_dict" and self._statement_call(original):
                return None  # the statement rule translates it
            if method in ("state_dict", "load_state_dict"):
                raise Left("load", "modules have no state_dict(): save with model.save_file(path), "
                                   "convert with to_torch_state_dict / load_torch_state_dict")
            if method in ("apply",):
                raise Left("init_functions")
            return None
        if method in ("state_dict", "load_state_dict", "param_groups", "add_param_group", "get_last_lr"):
            raise Left("optimizer_state")
        return None

    def _statement_call(self, original: cst.Call) -> bool:
        """Whether ``original`` is a whole expression statement."""
        node = self.ast_of(original)
        return isinstance(self.facts.analysis.parent.get(node), ast.Expr)

    def _unpacked_pair(self, original: cst.Call) -> bool:
        """Whether ``original`` is the value of ``a, b = ...`` (the statement rule's case)."""
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node)
        return isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Tuple) \
            and len(parent.targets[0].elts) == 2

    def _argument_of_handled_call(self, original: cst.Call) -> bool:
        """Whether ``original`` is an argument of a call a statement rule translates as a whole
        (an optimizer constructor, ``torch.save``, gradient clipping)."""
        node = self.ast_of(original)
        parent = self.facts.analysis.parent.get(node) if node is not None else None
        while parent is not None and not isinstance(parent, ast.stmt):
            q = self.facts.analysis.qualname(parent.func) if isinstance(parent, ast.Call) else None
            if q is not None and (q.startswith("torch.optim.") or q == "torch.save"
                                  or q.startswith("torch.nn.utils.clip_grad")):
                return True
            parent = self.facts.analysis.parent.get(parent)
        return False

    # -------------------------------------------------------------- tensor methods ----
    def _tensor_method(self, original: cst.Call, updated: cst.Call, method: str) -> cst.BaseExpression | None:
        x = self.code(updated.func.value)
        a = updated.args
        code = self.code
        if method in ("view", "reshape"):
            return self._expr(original, "reshape", {"x": x, "shape": sequence(a, code)})
        if method == "view_as":
            return self._expr(original, "reshape", {"x": x, "shape": f"{code(a[0].value)}.dims()"})
        if method == "size":
            return self._expr(original, "size", {"x": x, "dim": code(a[0].value) if a else None})
        if method == "dim":
            return self._expr(original, "rank", {"x": x})
        if method == "numel":
            return self._expr(original, "numel", {"x": x})
        if method in ("expand", "repeat"):
            return self._expr(original, "expand", {"x": x, "method": method, "sizes": sequence(a, code)})
        if method == "transpose":
            f = bind(updated, ("dim0", "dim1"), code)
            return self._expr(original, "transpose", {"x": x, **f})
        if method == "permute":
            return self._expr(original, "permute", {"x": x, "dims": sequence(a, code)})
        if method == "contiguous":
            return self._expr(original, "contiguous", {"x": x})
        if method == "unsqueeze":
            return self._expr(original, "unsqueeze", {"x": x, "dim": bind(updated, ("dim",), code)["dim"]})
        if method == "squeeze":
            f = bind(updated, ("dim",), code)
            return self._expr(original, "squeeze", {"x": x, "method": "squeeze_dim" if f else "squeeze", **f})
        if method in ("sum", "mean") and a:
            return self._reduction(original, updated, method, x)
        if method in ("argmax", "argmin"):
            f = bind(updated, ("dim", "keepdim"), code)
            if "dim" not in f:
                raise Left("argmax", "argmax without a dim flattens in torch: flatten first")
            keep = literal(arg_node(updated, ("dim", "keepdim"), "keepdim"))
            if keep is ...:
                keep = False
            return self._expr(original, "argmax", {"x": x, "method": method, "dim": f["dim"],
                                                   "squeeze": None if keep else f["dim"]})
        if method in ("max", "min") and a:
            if self._unpacked_pair(original):
                return None  # the statement rule translates it
            raise Left("max_dim", "max(dim) returns (values, indices) with the dim removed: unpack it "
                                  "as values, indices = ... to translate")
        if method in ("split", "chunk"):
            f = bind(updated, ("size" if method == "split" else "chunks", "dim"), code)
            size = f.get("size", f.get("chunks"))
            size_node = arg_node(updated, ("size" if method == "split" else "chunks", "dim"),
                                 "size" if method == "split" else "chunks")
            if method == "split" and isinstance(size_node, (cst.List, cst.Tuple)):
                raise Left("split", "split with a list of sizes: use split_with_sizes")
            return self._expr(original, "split", {"x": x, "method": method, "size": size, "dim": f.get("dim", "0")})
        if method == "flatten":
            f = bind(updated, ("start_dim", "end_dim"), code)
            return self._expr(original, "flatten", {"x": x, "start_dim": f.get("start_dim", "0"),
                                                    "end_dim": f.get("end_dim", "-1")})
        if method in ("bmm", "mm"):
            return self._expr(original, "matmul", {"input": x, "other": code(a[0].value)})
        if method == "pow":
            return self._pow(original, x, updated.args[0].value)
        if method in ("relu", "sigmoid", "tanh") and not a:
            if method == "tanh":
                return None
            return self._expr(original, "activation", {"function": method, "input": x})
        if method in ("softmax", "log_softmax"):
            f = bind(updated, ("dim",), code)
            if "dim" not in f:
                raise Left("softmax", "softmax without dim: name the dim")
            return self._expr(original, "softmax", {"function": method, "input": x, "dim": f["dim"]})
        if method == "item":
            return self._expr(original, "item", {"x": x})
        if method in ("long", "double") or (method in _CASTS and method != _CASTS[method]):
            return self._expr(original, "cast", {"x": x, "method": _CASTS[method]})
        if method in _COMPARE:
            return self._compare(original, x, updated.args[0].value, _COMPARE[method])
        if method == "masked_fill":
            f = bind(updated, ("mask", "value"), code)
            return self._expr(original, "masked_fill", {"x": x, **f})
        if method in ("clamp", "clip"):
            f = bind(updated, ("min", "max"), code)
            if "min" in f and "max" in f:
                return self._expr(original, "clamp", {"x": x, "method": "clamp", "bounds": f"{f['min']}, {f['max']}"})
            side = "min" if "min" in f else "max"
            return self._expr(original, "clamp", {"x": x, "method": f"clamp_{side}", "bounds": f[side]})
        if method in ("to", "cuda", "cpu"):
            return self._to_device(original, updated, x)
        if method in ("zero_grad",):
            return None
        if method.endswith("_") and not method.endswith("__"):
            raise Left(None, f"in-place {method}: tensors are values, rebind the result of the "
                             f"out-of-place method")
        if method in ("sum", "mean") and self._is_comparison(original.func.value):
            return self._expr(original, "cast", {"x": x, "method": f"int().{method}"})
        if method in _SAME_METHODS:
            return None
        if method in ("new_zeros", "new_ones"):
            return self._expr(original, "creation", {"function": method[4:],
                                                     "args": f"{sequence(a, code)}, {x}.device()"})
        if method in ("numpy", "tolist", "cpu", "type_as", "expand_as",
                      "index_select", "gather", "scatter", "masked_select", "nonzero", "topk", "sort"):
            if method == "topk":
                raise Left("topk")
            raise Left(None, f"tensor method {method}() has no table row")
        return None

    def _is_comparison(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Comparison):
            return True
        return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in _COMPARE

    @staticmethod
    def _root_name(node: cst.BaseExpression) -> str | None:
        """``x`` for ``x``, ``x.reshape(...)``, ``x[0].float()``: the name a method chain starts at."""
        while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
            node = node.func if isinstance(node, cst.Call) else node.value
        return node.value if isinstance(node, cst.Name) else None

    def _reduction(self, original, updated, method, x):
        f = bind(updated, ("dim", "keepdim"), self.code, ("dtype",))
        dim_node = arg_node(updated, ("dim", "keepdim"), "dim")
        if isinstance(dim_node, (cst.Tuple, cst.List)):
            raise Left(f"{method}_dim", "a reduction over several dims: use sum_dims/mean_dims")
        keep = literal(arg_node(updated, ("dim", "keepdim"), "keepdim"))
        if keep not in (..., True, False):
            raise Left(f"{method}_dim", "keepdim is not a literal")
        return self._expr(original, f"{method}_dim", {"x": x, "dim": f["dim"],
                                                      "squeeze": None if keep is True else f["dim"]})

    def _pow(self, original, x, exponent) -> cst.BaseExpression:
        value = literal(exponent)
        if isinstance(value, bool) or value is ...:
            raise Left("pow", "a power whose exponent is not a number literal: powf(tensor) or "
                              "powf_scalar(float)")
        method = "powi_scalar" if isinstance(value, int) else "powf_scalar"
        return self._expr(original, "pow", {"x": x, "method": method, "exponent": self.code(exponent)})

    def _compare(self, original, left: str, right_node: cst.BaseExpression, method: str):
        if literal(right_node) is not ...:
            method += "_elem"
        return self._expr(original, "compare", {"left": left, "method": method, "right": self.code(right_node)})

    def _to_device(self, original, updated, x) -> cst.BaseExpression:
        if self._root_name(original.func.value) in self.frame.converted:
            self.record(Event(self.line(original), "translated", "batch_from_torch"))
            return updated.func.value  # computed from a batch already on the device
        if not updated.args:
            device = self.device_at(original)
        else:
            f = bind(updated, ("device",), self.code, ("non_blocking", "dtype"))
            if "device" not in f:
                raise Left("to_device", "to(dtype): cast with float()/int()")
            device = f["device"]
        return self._expr(original, "to_device", {"x": x, "device": device})

    # -------------------------------------------------------------- torch functions ----
    def _qualified(self, q: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        code = self.code
        if q in ("torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss"):
            raise Left("bce_loss")
        if q in LAYERS:
            row_id, fields = layer_fields(q, updated, code)
            if row_id == "nll_loss" and not self.facts.log_softmax_outputs:
                raise Left("nll_loss", self.table["nll_loss"].torch and
                           "nll_loss on values that are not log_softmax outputs: no Burn loss computes it")
            return self._expr(original, row_id, fields)
        if q == "torch.nn.Parameter":
            f = bind(updated, ("data", "requires_grad"), code)
            return self._expr(original, "parameter", f)
        if q == "torch.nn.Sequential":
            if len(updated.args) == 1 and updated.args[0].star == "*":
                return self._expr(original, "sequential", {"layers": "*" + code(updated.args[0].value)})
            if any(a.keyword is not None or a.star for a in updated.args):
                raise Left("sequential", "Sequential of an OrderedDict or *list: write the list")
            return self._expr(original, "sequential", {"layers": ", ".join(code(a.value) for a in updated.args)})
        if q == "torch.nn.ModuleList":
            return self._expr(original, "module_list", {"modules": code(updated.args[0].value) if updated.args else ""})
        if q == "torch.nn.ModuleDict":
            return self._expr(original, "module_dict", {"modules": code(updated.args[0].value) if updated.args else ""})
        if q.startswith("torch.nn.init."):
            raise Left("init_functions")
        if q.startswith("torch.nn.utils.clip_grad"):
            raise Left("clip_grad")
        fn = q.rsplit(".", 1)[1]
        functional = q.startswith("torch.nn.functional.")
        if (functional or q.startswith("torch.")) and fn in _ACTIVATIONS and q.count(".") <= 3:
            return self._expr(original, "activation", {"function": _ACTIVATIONS[fn], "input": code(updated.args[0].value)})
        if fn in _SOFTMAX and (functional or q == f"torch.{fn}"):
            f = bind(updated, ("input", "dim", "_stacklevel", "dtype"), code)
            if "dim" not in f:
                raise Left("softmax", "softmax without dim: name the dim")
            return self._expr(original, "softmax", {"function": fn, "input": f["input"], "dim": f["dim"]})
        if q == "torch.nn.functional.leaky_relu":
            f = bind(updated, ("input", "negative_slope", "inplace"), code, ("inplace",))
            return self._expr(original, "leaky_relu", {"input": f["input"],
                                                       "negative_slope": f.get("negative_slope", "0.01")})
        if q in ("torch.nn.functional.max_pool2d", "torch.nn.functional.avg_pool2d"):
            names = ("input", "kernel_size", "stride", "padding")
            f = bind(updated, names, code, ("ceil_mode",) if False else ())
            kernel = pair(arg_node(updated, names, "kernel_size"), code)
            stride_node = arg_node(updated, names, "stride")
            stride = kernel if stride_node is None or literal(stride_node) is None else pair(stride_node, code)
            padding = pair(arg_node(updated, names, "padding"), code) or "[0, 0]"
            row_id = "max_pool2d_function" if "max" in q else "avg_pool2d_function"
            return self._expr(original, row_id, {"input": f["input"], "kernel_size": kernel, "stride": stride,
                                                 "padding": padding})
        if q == "torch.nn.functional.layer_norm":
            f = bind(updated, ("input", "normalized_shape", "weight", "bias", "eps"), code)
            if "weight" not in f:
                raise Left(None, "layer_norm without weight: pass ones")
            return self._expr(original, "layer_norm_function", {"input": f["input"], "weight": f["weight"],
                                                                "bias": f.get("bias", "None"),
                                                                "eps": f.get("eps", "1e-05")})
        if q == "torch.nn.functional.dropout":
            raise Left("dropout_function")
        if q == "torch.nn.functional.scaled_dot_product_attention":
            raise Left("attention_function")
        if q in ("torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"):
            names = ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction",
                     "label_smoothing")
            f = bind(updated, names, code)
            if any(k in f for k in ("weight", "size_average", "ignore_index", "reduce")) or \
                    literal(arg_node(updated, names, "reduction")) not in (..., "mean"):
                raise Left("loss_reduction")
            row_id = "cross_entropy" if fn == "cross_entropy" else "nll_loss"
            first = original.args[0].value if original.args else None
            on_log_softmax = isinstance(first, cst.Call) and self.qual(first.func) in (
                "torch.nn.functional.log_softmax", "torch.log_softmax")
            if row_id == "nll_loss" and not (self.facts.log_softmax_outputs or on_log_softmax):
                raise Left("nll_loss", "nll_loss on values that are not log_softmax outputs: no Burn loss computes it")
            return self._expr(original, row_id, {"label_smoothing": f.get("label_smoothing"),
                                                 "args": f"{f['input']}, {f['target']}"})
        if q == "torch.nn.functional.mse_loss":
            names = ("input", "target", "size_average", "reduce", "reduction")
            f = bind(updated, names, code)
            if "size_average" in f or "reduce" in f:
                raise Left("loss_reduction")
            reduction = literal(arg_node(updated, names, "reduction"))
            if reduction not in (..., "mean", "sum"):
                raise Left("loss_reduction")
            extra = "" if reduction in (..., "mean") else ", nn.Reduction.SUM"
            return self._expr(original, "mse_loss", {"args": f"{f['input']}, {f['target']}{extra}"})
        if q in ("torch.nn.functional.binary_cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits"):
            raise Left("bce_loss")
        if q in ("torch.cat", "torch.stack", "torch.concat"):
            f = bind(updated, ("tensors", "dim"), code)
            return self._expr(original, "cat", {"function": "stack" if fn == "stack" else "cat",
                                                "tensors": f["tensors"], "dim": f.get("dim", "0")})
        if q == "torch.flatten":
            f = bind(updated, ("input", "start_dim", "end_dim"), code)
            return self._expr(original, "flatten", {"x": self.recv(updated.args[0].value),
                                                    "start_dim": f.get("start_dim", "0"),
                                                    "end_dim": f.get("end_dim", "-1")})
        if q in ("torch.matmul", "torch.bmm", "torch.mm"):
            f = bind(updated, ("input", "other"), code)
            if "other" not in f:
                f = bind(updated, ("input", "mat2"), code)
                f["other"] = f.pop("mat2")
            f["input"] = self.recv(updated.args[0].value)
            return self._expr(original, "matmul", f)
        if q == "torch.pow":
            return self._pow(original, self.recv(updated.args[0].value), updated.args[1].value)
        if fn in _UNARY and q == f"torch.{fn}":
            return self._expr(original, "unary_function", {"input": self.recv(updated.args[0].value), "method": fn})
        if q in ("torch.tril", "torch.triu"):
            f = bind(updated, ("input", "diagonal"), code)
            return self._expr(original, "tril", {"x": self.recv(updated.args[0].value), "method": fn,
                                                 "diagonal": f.get("diagonal", "0")})
        if q in ("torch.sum", "torch.mean") and len(updated.args) > 1:
            x = self.recv(updated.args[0].value)
            inner = updated.with_changes(args=updated.args[1:])
            return self._reduction(original, inner, fn, x)
        if q in ("torch.sum", "torch.mean", "torch.max", "torch.min") and len(updated.args) == 1:
            return self._expr(original, "unary_function", {"input": self.recv(updated.args[0].value), "method": fn})
        if q in ("torch.max", "torch.min"):
            if self._unpacked_pair(original):
                return None  # the statement rule translates it
            raise Left("max_dim", "max(x, dim) returns (values, indices) with the dim removed: unpack it "
                                  "as values, indices = ... to translate")
        if q in ("torch.argmax", "torch.argmin"):
            x = self.recv(updated.args[0].value)
            inner = updated.with_changes(args=updated.args[1:])
            return self._tensor_method(original, inner.with_changes(
                func=cst.Attribute(cst.parse_expression(x), cst.Name(fn))), fn)
        if q == "torch.where" and len(updated.args) == 3:
            f = bind(updated, ("condition", "input", "other"), code)
            f["other"] = self.recv(arg_node(updated, ("condition", "input", "other"), "other"))
            return self._expr(original, "where", f)
        if fn in _CREATION and q == f"torch.{fn}":
            return self._creation(original, updated, fn)
        if q in ("torch.zeros_like", "torch.ones_like", "torch.randn_like", "torch.rand_like"):
            f = bind(updated, ("input",), code, ("device",))
            f["input"] = self.recv(updated.args[0].value)
            if fn in ("randn_like", "rand_like"):
                dist = "Distribution.normal(0.0, 1.0)" if fn == "randn_like" else "Distribution.default()"
                return self._expr(original, "like", {"x": f["input"], "method": "random_like", "extra": dist})
            return self._expr(original, "like", {"x": f["input"], "method": fn, "extra": None})
        if q == "torch.device":
            return self._expr(original, "device", {"spec": ", ".join(code(a.value) for a in updated.args)})
        if q.startswith("torchvision.") and any(self._strict_tensor(a.value) for a in original.args):
            args = [a.with_changes(value=cst.parse_expression(f"{self.recv(u.value)}.to_torch()"))
                    if self._strict_tensor(a.value) else u for a, u in zip(original.args, updated.args)]
            self.record(Event(self.line(original), "translated", "to_torch"))
            return updated.with_changes(args=args)
        if q.startswith(_KEEP_TORCH) or q.startswith("torch.optim") or q in ("torch.save",):
            return None
        if q.split(".")[0] == "torch":
            raise Left(None, f"{q} has no row in the mapping table")
        return None

    def _creation(self, original: cst.Call, updated: cst.Call, fn: str) -> cst.BaseExpression:
        device = self.device_at(original)
        kind = ""
        shape_args = []
        for a in updated.args:
            if a.keyword is None:
                shape_args.append(a)
            elif a.keyword.value == "device":
                device = self.code(a.value)
                if device.endswith(".device"):
                    device += "()"
            elif a.keyword.value == "dtype":
                dtype = self.code(a.value).rsplit(".", 1)[-1]
                if dtype in ("long", "int64", "int", "int32"):
                    kind = "Int"
                elif dtype == "bool":
                    kind = "Bool"
                elif dtype not in ("float", "float32"):
                    raise Left("creation", f"dtype {dtype}: set it with dtype=DType...")
            elif a.keyword.value == "requires_grad":
                raise Left("creation", "requires_grad=: call require_grad() on the tensor")
            else:
                raise Left("creation", f"argument {a.keyword.value}=")
        if fn == "arange":
            values = [self.code(a.value) for a in shape_args]
            if len(values) == 1:
                values = ["0", values[0]]
            if len(values) == 3:
                return self._expr(original, "creation", {"function": "arange_step",
                                                         "args": f"{values[0]}, {values[1]}, {values[2]}, {device}"})
            return self._expr(original, "creation", {"function": "arange", "args": f"{values[0]}, {values[1]}, {device}"})
        if fn == "tensor":
            args = f"{self.code(shape_args[0].value)}, {device}" + (f", {kind}" if kind else "")
            return self._expr(original, "creation", {"function": "from_data", "args": args})
        if fn == "eye":
            return self._expr(original, "creation", {"function": "eye", "args": f"{self.code(shape_args[0].value)}, {device}"})
        if fn == "full":
            shape = sequence(shape_args[:1], self.code)
            args = f"{shape}, {self.code(shape_args[1].value)}, {device}"
            return self._expr(original, "creation", {"function": "full", "args": args + (f", {kind}" if kind else "")})
        shape = sequence(shape_args, self.code)
        if fn in ("randn", "rand"):
            dist = "Distribution.normal(0.0, 1.0)" if fn == "randn" else "Distribution.default()"
            return self._expr(original, "creation", {"function": "random", "args": f"{shape}, {dist}, {device}"})
        args = f"{shape}, {device}" + (f", {kind}" if kind else "")
        return self._expr(original, "creation", {"function": fn, "args": args})

    # -------------------------------------------------------------- operators ----
    def leave_BinaryOperation(self, original, updated):
        if isinstance(original.operator, cst.Power) and self._tensor(original.left) and \
                not isinstance(original.left, (cst.Integer, cst.Float)):
            try:
                return self._pow(original, self.code(updated.left), updated.right)
            except Left as exc:
                self.leave_place(original, exc)
        return updated

    def leave_Comparison(self, original, updated):
        if len(original.comparisons) != 1:
            return updated
        op = original.comparisons[0].operator
        method = _COMPARE_OPS.get(type(op))
        right = original.comparisons[0].comparator
        if method is None or not (self._strict_tensor(original.left) or self._strict_tensor(right)):
            return updated
        if not self._strict_tensor(original.left):
            return updated
        result = self._compare(original, self.recv(updated.left), updated.comparisons[0].comparator, method)
        return result.with_changes(lpar=updated.lpar, rpar=updated.rpar) if hasattr(result, "lpar") else result

    def _strict_tensor(self, node) -> bool:
        if isinstance(node, cst.Name) and (node.value in self.frame.converted or node.value in self.frame.tensors):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value not in _NON_TENSOR_RESULTS and self._strict_tensor(node.func.value):
            return True  # a method chain on a tensor: x.reshape(...).float()
        if isinstance(node, cst.Call) and self.frame.cls is not None and self._module_field(node.func):
            return True  # a layer's output
        return self.facts.is_tensor_kind(self.kind(node)) or self._method_returns_tensor(node)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not self._strict_tensor(original.value) or self._is_target(original):
            return updated
        try:
            ranges, squeeze = [], []
            for i, element in enumerate(updated.slice):
                index = element.slice
                if isinstance(index, cst.Slice):
                    if index.step is not None:
                        raise Left("slice", "a slice with a step: use Burn's slice with a step")
                    lo = self.code(index.lower) if index.lower else "None"
                    hi = self.code(index.upper) if index.upper else "None"
                    ranges.append("slice(None)" if lo == hi == "None" else f"slice({lo}, {hi})")
                elif isinstance(index, cst.Index) and int_literal(index.value):
                    ranges.append(self.code(index.value))
                    squeeze.append(str(i))
                else:
                    raise Left("slice", "indexing with a tensor, None or ...: use select/gather/unsqueeze_dim")
            return self._expr(original, "slice", {"x": self.code(updated.value), "ranges": ", ".join(ranges),
                                                  "squeeze": ", ".join(squeeze) or None})
        except Left as exc:
            self.leave_place(original, exc)
            return updated
