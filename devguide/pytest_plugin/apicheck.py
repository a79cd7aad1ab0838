"""The API check of device-only blocks (marked ``cuda``, ``mps`` or ``xpu``) on a
machine without that device: every ``torch.…`` name they use must exist in the
installed torch, and none may be deprecated."""

from __future__ import annotations

import ast

from devguide.census import torch_facts
from devguide.source.blocks import Block

# --------------------------------------------------------------------------- API check

# Names that exist but are deprecated, and what to use instead
DEPRECATED = {
    "torch.cuda.amp.autocast": "torch.amp.autocast('cuda')",
    "torch.cuda.amp.GradScaler": "torch.amp.GradScaler('cuda')",
    "torch.cuda.amp.custom_fwd": "torch.amp.custom_fwd(device_type='cuda')",
    "torch.cuda.amp.custom_bwd": "torch.amp.custom_bwd(device_type='cuda')",
    "torch.nn.utils.clip_grad_norm": "torch.nn.utils.clip_grad_norm_",
    "torch.cuda.FloatTensor": "torch.tensor(..., device='cuda')",
    "torch.autograd.Variable": "a plain tensor",
}


def unresolved_torch_attributes(block: Block) -> list[str]:
    """``torch.…`` attribute paths in a block that the installed torch lacks (or deprecates).

    Catches ``torch.cuda.event``, ``torch.cuda.amp.autocast`` or
    ``torch.mps.synchronise`` in device-only blocks on a machine where those
    blocks cannot run (torch's CPU build has ``torch.cuda``, ``torch.mps`` and
    ``torch.xpu`` all the same). Aliases from
    ``import torch.nn as nn`` and ``from torch import cuda`` are followed.
    """
    tree = ast.parse(block.code)
    aliases = _torch_aliases(tree)
    found: dict[tuple[str, ...], ast.Attribute | ast.Name] = {}  # each path, where it first appears
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            path = _dotted(node, aliases)
            if path and tuple(path) not in found:
                found[tuple(path)] = node
    paths = [list(path) for path in found if ".".join(path) not in DEPRECATED]
    # torch is asked in a process of its own (devguide.census.torch_facts), all paths at once
    absent = dict(zip(map(tuple, paths), torch_facts.first_missing(paths), strict=True))
    missing = []
    for key, node in found.items():
        dotted = ".".join(key)
        if dotted in DEPRECATED:
            problem = f"{dotted} is deprecated: use {DEPRECATED[dotted]}"
        elif absent.get(key) is not None:
            problem = f"{absent[key]} does not exist in torch"
        else:
            continue
        p, n = block.line_map[node.lineno - 1]
        missing.append(f"{p}:{n}: {problem}")
    return sorted(set(missing))


def _torch_aliases(tree: ast.AST) -> dict[str, str]:
    """The names a block binds to torch or a part of it: ``nn`` → ``torch.nn``, …"""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch" or a.name.startswith("torch."):
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "torch"
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _dotted(node: ast.AST, aliases: dict[str, str]) -> list[str] | None:
    """``nn.functional.relu`` → ["torch", "nn", "functional", "relu"]; None when it is not torch's."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return aliases[node.id].split(".") + parts[::-1]
    return None
