"""Find the tensors of a module that ``module.to(device)`` would leave behind.

``Module.to()`` moves parameters, buffers and registered submodules only. A
deep copy moved to the ``meta`` device (which holds no data, so no GPU is
needed) shows every tensor that stays where it was.
"""

import copy

import torch
from torch import nn


def tensors_left_behind(model: nn.Module) -> list[str]:
    """Attribute names whose tensors do not follow ``model.to(device)``."""
    probe = copy.deepcopy(model).to("meta")
    found = []
    for prefix, module in probe.named_modules():
        for name, value in vars(module).items():
            items = value if isinstance(value, (list, tuple)) else [value]
            for item in items:
                if isinstance(item, nn.Module):
                    tensors = [*item.parameters(), *item.buffers()]
                elif isinstance(item, torch.Tensor):
                    tensors = [item]
                else:
                    continue
                if any(t.device.type != "meta" for t in tensors):
                    found.append(f"{prefix}.{name}" if prefix else name)
                    break
    return found
