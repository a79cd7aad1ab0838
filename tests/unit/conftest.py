"""Fixtures shared by the harness's unit tests (no test module imports another)."""

import textwrap

import pytest

DEVICE_PAGE = """\
# P { #p }

'''python
print("runs here")
'''

<!--pytest.mark.mps-->
'''python
import torch

x = torch.ones(2, device="mps")
torch.mps.synchronize()
'''

<!--pytest.mark.xpu-->
'''python
import torch

assert torch.xpu.is_available()
'''

<!--pytest.mark.mps-->
'''python
import torch

torch.mps.synchronise()
'''
"""


@pytest.fixture(scope="session")
def device_page() -> str:
    """A page with a CPU block, an MPS-only and an XPU-only block, and an MPS-only
    block with a misspelt torch name (''' stands for a fence)."""
    return DEVICE_PAGE


@pytest.fixture
def write_page(tmp_path):
    """Writes a planted page under ``tmp_path`` (dedented, ''' standing for a
    fence) and returns its path: ``write_page(text, "docs/zh/p.md")``."""

    def write(text: str, name: str = "page.md"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("'''", "`" * 3), encoding="utf-8")
        return path

    return write
