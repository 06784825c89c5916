"""The optimizer rows' arguments: a torch optimizer constructor becomes the Burn config with
torch's hyperparameters written out where Burn's defaults differ (Adam's epsilon, SGD momentum's
dampening, AdamW's weight decay...). Torch-free."""
from __future__ import annotations

import libcst as cst

from .args import Unsupported, arg_node, bind, literal
from .events import Left

_OPTIMIZER_ROWS = {"torch.optim.Adam": "AdamConfig", "torch.optim.AdamW": "AdamWConfig",
                   "torch.optim.SGD": "SgdConfig", "torch.optim.RMSprop": "RmsPropConfig",
                   "torch.optim.Adagrad": "AdaGradConfig"}

_OPTIMIZER_PARAMS = {
    "torch.optim.Adam": ("params", "lr", "betas", "eps", "weight_decay", "amsgrad"),
    "torch.optim.AdamW": ("params", "lr", "betas", "eps", "weight_decay", "amsgrad"),
    "torch.optim.SGD": ("params", "lr", "momentum", "dampening", "weight_decay", "nesterov"),
    "torch.optim.RMSprop": ("params", "lr", "alpha", "eps", "weight_decay", "momentum", "centered"),
    "torch.optim.Adagrad": ("params", "lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"),
}
_OPTIMIZER_LR = {"torch.optim.Adam": "0.001", "torch.optim.AdamW": "0.001", "torch.optim.SGD": "0.001",
                 "torch.optim.RMSprop": "0.01", "torch.optim.Adagrad": "0.01"}


def optimizer_config(q: str, call: cst.Call, code) -> tuple[str, str]:
    """(the Burn config with torch's hyperparameters, Burn's default config) for the torch
    optimizer constructor ``call``. Raises Left for a setting Burn's optimizer lacks."""
    names = _OPTIMIZER_PARAMS[q]
    try:
        f = bind(call, names, code, ("foreach", "maximize", "capturable", "differentiable", "fused"))
    except Unsupported as exc:
        raise Left("optimizer_unsupported", str(exc)) from exc
    cls = _OPTIMIZER_ROWS[q]
    parts: list[str] = []
    betas = arg_node(call, names, "betas")
    if q in ("torch.optim.Adam", "torch.optim.AdamW"):
        if betas is not None:
            if isinstance(betas, (cst.Tuple, cst.List)) and len(betas.elements) == 2:
                parts += [f"beta_1={code(betas.elements[0].value)}", f"beta_2={code(betas.elements[1].value)}"]
            else:
                parts += [f"beta_1={f['betas']}[0]", f"beta_2={f['betas']}[1]"]
        parts.append(f"epsilon={f.get('eps', '1e-08')}")
        if q == "torch.optim.AdamW":
            parts.append(f"weight_decay={f.get('weight_decay', '0.01')}")
        elif "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
        if literal(arg_node(call, names, "amsgrad")) is True:
            if q == "torch.optim.AdamW":
                raise Left("optimizer_unsupported", "AdamW with amsgrad")
            parts.append("amsgrad=True")
    elif q == "torch.optim.SGD":
        momentum = literal(arg_node(call, names, "momentum"))
        if "momentum" in f and momentum != 0:
            extra = f", dampening={f.get('dampening', '0.0')}"
            if "nesterov" in f:
                extra += f", nesterov={f['nesterov']}"
            parts.append(f"momentum=MomentumConfig({f['momentum']}{extra})")
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    elif q == "torch.optim.RMSprop":
        parts += [f"alpha={f.get('alpha', '0.99')}", f"momentum={f.get('momentum', '0.0')}",
                  f"epsilon={f.get('eps', '1e-08')}"]
        if "centered" in f:
            parts.append(f"centered={f['centered']}")
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    elif q == "torch.optim.Adagrad":
        if "initial_accumulator_value" in f and literal(arg_node(call, names, "initial_accumulator_value")) != 0:
            raise Left("optimizer_unsupported", "initial_accumulator_value")
        parts += [f"lr_decay={f.get('lr_decay', '0.0')}", f"epsilon={f.get('eps', '1e-10')}"]
        if "weight_decay" in f and literal(arg_node(call, names, "weight_decay")) != 0:
            parts.append(f"weight_decay=WeightDecayConfig({f['weight_decay']})")
    return f"{cls}({', '.join(parts)})", f"{cls}()"
