"""For a run with pytest-codeblocks' own plugin, without this project's harness:

    pytest -o addopts="" --codeblocks docs/zh/devices/moving.md

The pages stay runnable that way (the design's extractor, nothing of ours), but
that plugin does not know our marks: here, a block marked
``<!--pytest.mark.cuda-->`` is skipped when no CUDA device is present, and an
excused one (``skip(reason=…)``) is skipped by pytest itself. The project's own
runs (``-p devguide.plugin``) do not pass through this hook's branch.
"""

import pytest


def pytest_configure(config):
    for name in ("cuda", "pinned", "timeout"):
        config.addinivalue_line("markers", f"{name}: a mark of the pages (see CONTRIBUTING.md)")


def pytest_collection_modifyitems(config, items):
    plain = [i for i in items if type(i).__name__ == "TestBlock"]  # pytest-codeblocks' items
    if not plain:
        return
    import torch

    if torch.cuda.is_available():
        return
    for item in plain:
        if item.get_closest_marker("cuda"):
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device"))
