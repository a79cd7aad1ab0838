"""IPython kernel configuration that ``make setup`` copies into the venv
(``.venv/etc/ipython/ipython_kernel_config.py``, a folder every kernel started
from that venv reads); not imported by the harness.

The site build executes the two notebooks in a Jupyter kernel (mkdocs-jupyter),
and each kernel start printed "[IPKernelApp] WARNING | Kernel is running over
TCP without encryption…": the kernel listens on 127.0.0.1 for the build that
started it and is gone with it, so the warning says nothing about this project.
That one message is dropped; every other kernel message stays.
"""

import logging


class _DropTcpNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "running over TCP without encryption" not in record.getMessage()


logging.getLogger("IPKernelApp").addFilter(_DropTcpNotice())
