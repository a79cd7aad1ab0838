"""Fixtures shared by the harness's unit tests (no test module imports another)."""

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
