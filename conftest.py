"""For a run with pytest-codeblocks' own plugin, without this project's harness:

    pytest -o addopts="" -p no:devguide --codeblocks docs/zh/devices/moving.md

The pages stay runnable that way (the design's extractor, nothing of ours), but
that plugin does not know our marks: here, a block marked
``<!--pytest.mark.cuda-->``, ``mps`` or ``xpu`` is skipped when no such device is
present, and an excused one (``skip(reason=…)``) is skipped by pytest itself.
The project's own runs (the plugin ``devguide``, loaded by its entry point) do
not pass through this hook's branch.
"""

import pytest

DEVICES = {"cuda": "a CUDA device", "mps": "an Apple-silicon MPS device", "xpu": "an Intel GPU (XPU)"}


def pytest_configure(config):
    for name in (*DEVICES, "pinned", "timeout"):
        config.addinivalue_line("markers", f"{name}: a mark of the pages (see CONTRIBUTING.md)")


def available(torch, kind: str) -> bool:
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return torch.backends.mps.is_available()
    return hasattr(torch, "xpu") and torch.xpu.is_available()


def pytest_collection_modifyitems(config, items):
    plain = [i for i in items if type(i).__name__ == "TestBlock"]  # pytest-codeblocks' items
    if not plain:
        return
    import torch

    for kind, device in DEVICES.items():
        if available(torch, kind):
            continue
        for item in plain:
            if item.get_closest_marker(kind):
                item.add_marker(pytest.mark.skip(reason=f"needs {device}"))
