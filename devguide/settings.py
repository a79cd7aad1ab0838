"""The environment variables the package reads, in one place.

``current()`` takes them from ``os.environ`` when it is called, so each is read
in the process and at the moment it always was: ``DEVGUIDE_ROOT`` when
``devguide.paths`` is imported, ``DOCS_FORK`` when the block runner
(``devguide.run.zygote``) starts, the others when they are used. A value is
checked when it is read: a bad one fails there, naming the variable and what
to write. ``VARIABLES`` is the table that CONTRIBUTING.md and CONTRIBUTING.zh.md
show (tests/unit/test_settings.py keeps the three alike).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_RUN_TIMEOUT = 3600.0  # seconds: a first make test takes a few minutes on 2 cores
DEFAULT_BLOCK_OUTPUT_MB = 10.0
DEFAULT_BLOCK_DISK_GB = 2.0
DEFAULT_IFRAME_WORKER_SHIM = "build/vendor/iframe-worker/shim/index.js"

# name → (what it sets, its default): the table of CONTRIBUTING.md
VARIABLES = {
    "DEVGUIDE_ROOT": ("the project the package serves", "the folder devguide/ is in"),
    "DOCS_TORCH": ("the torch the pages run with: `any` (make test-cuda) or a version (make test-torch)",
                   "the pinned one"),
    "REQUIRE_CUDA": ("`1`: fail at once where CUDA is missing", "off"),
    "DOCS_RUN_TIMEOUT": ("the whole run's time limit in seconds, `0` for none", "3600"),
    "DOCS_BLOCK_MEMORY_GB": ("the memory all of a block's processes may use, in GB",
                             "60 % of the machine's, shared by the pytest workers"),
    "DOCS_BLOCK_OUTPUT_MB": ("what a block may print on stdout and on stderr each, in MB", "10"),
    "DOCS_BLOCK_DISK_GB": ("the disk a block's folder may take, in GB", "2"),
    "DOCS_LANDLOCK": ("`0`: blocks run without Landlock (RepoGuard keeps the repository)", "on where the kernel has it"),
    "DOCS_FORK": ("`0`: the block runner starts each block fresh instead of forking it", "fork (Linux)"),
    "PYTEST_XDIST_WORKER_COUNT": ("the pytest workers (set by pytest-xdist): the share of memory and cores of a block",
                                  "1"),
    "OMP_NUM_THREADS": ("when set, passed to blocks as it is instead of each worker's share of the cores",
                        "each worker's share"),
    "DEVGUIDE_SITE_TORCH": ("the torch version a versioned site build names (e.g. `2.15`)", "the pinned one"),
    "IFRAME_WORKER_SHIM": ("the iframe-worker shim of the offline build", DEFAULT_IFRAME_WORKER_SHIM),
    "OFFLINE_ZIP": ("the offline copy a build publishes", "none"),
    "PRINT_PDFS": ("the folder of the PDFs a build publishes", "none"),
    "PLAYWRIGHT_CHROMIUM": ("the Chromium the browser checks use", "the first on PATH, else Playwright's"),
    "NPM_CONFIG_REGISTRY": ("the npm registry `make offline` fetches the iframe-worker shim from (npm's own "
                            "variable; `npm_config_registry` too)", "https://registry.npmjs.org"),
    "JUPYTER_PATH": ("Jupyter's own: the site build puts the confined kernel's spec first on it",
                     "Jupyter's folders"),
}
READ_TOO = ("npm_config_registry",)  # npm's lower-case spelling of NPM_CONFIG_REGISTRY


class SettingError(ValueError):
    """A variable with a value the package cannot use: ``name``, ``value`` and what to write."""

    def __init__(self, name: str, value: str, message: str):
        self.name, self.value, self.message = name, value, message
        super().__init__(name, value, message)

    def __str__(self) -> str:
        return f"{self.name}={self.value!r}: {self.message}"


@dataclass(frozen=True)
class Settings:
    """The variables of ``VARIABLES`` as they were when ``current()`` read them;
    each property is one of them with its type and default."""

    env: Mapping[str, str]

    def _text(self, name: str) -> str:
        return self.env.get(name, "")

    def _number(self, name: str, default: float, what: str) -> float:
        value = self._text(name)
        if not value:
            return default
        try:
            return float(value)
        except ValueError:
            raise SettingError(name, value, f"not a number: write {what}") from None

    @property
    def root(self) -> Path | None:
        return Path(self._text("DEVGUIDE_ROOT")) if self._text("DEVGUIDE_ROOT") else None

    @property
    def torch(self) -> str:
        """"" (the pinned torch), "any", or the version named."""
        return self._text("DOCS_TORCH")

    @property
    def require_cuda(self) -> bool:
        return self._text("REQUIRE_CUDA") not in ("", "0")

    @property
    def run_timeout(self) -> float:
        """Seconds; 0 for none (so is an empty value)."""
        if "DOCS_RUN_TIMEOUT" in self.env and not self._text("DOCS_RUN_TIMEOUT"):
            return 0.0
        return self._number("DOCS_RUN_TIMEOUT", DEFAULT_RUN_TIMEOUT, "the seconds (e.g. 3600), or 0 for no limit")

    @property
    def block_memory_gb(self) -> float | None:
        """None: the machine's share (devguide.run.sandbox.memory_limit)."""
        if not self._text("DOCS_BLOCK_MEMORY_GB"):
            return None
        return self._number("DOCS_BLOCK_MEMORY_GB", 0.0, "the gigabytes a block may use (e.g. 4)")

    @property
    def block_output_mb(self) -> float:
        return self._number("DOCS_BLOCK_OUTPUT_MB", DEFAULT_BLOCK_OUTPUT_MB, "the megabytes a block may print (e.g. 10)")

    @property
    def block_disk_gb(self) -> float:
        return self._number("DOCS_BLOCK_DISK_GB", DEFAULT_BLOCK_DISK_GB, "the gigabytes a block's folder may take (e.g. 2)")

    @property
    def jupyter_path(self) -> list[str]:
        return [p for p in self._text("JUPYTER_PATH").split(os.pathsep) if p]

    @property
    def landlock(self) -> bool:
        return self._text("DOCS_LANDLOCK") != "0"

    @property
    def fork(self) -> bool:
        return self._text("DOCS_FORK") != "0"

    @property
    def xdist_workers(self) -> int:
        value = self._text("PYTEST_XDIST_WORKER_COUNT")
        try:
            return int(value or 1)
        except ValueError:
            raise SettingError("PYTEST_XDIST_WORKER_COUNT", value, "not a whole number: pytest-xdist sets it "
                               "to its count of workers; unset it") from None

    @property
    def omp_threads_set(self) -> bool:
        return "OMP_NUM_THREADS" in self.env

    @property
    def site_torch(self) -> str | None:
        return self._text("DEVGUIDE_SITE_TORCH") or None

    @property
    def iframe_worker_shim(self) -> Path:
        return Path(self._text("IFRAME_WORKER_SHIM") or DEFAULT_IFRAME_WORKER_SHIM)

    @property
    def offline_zip(self) -> str | None:
        return self._text("OFFLINE_ZIP") or None

    @property
    def print_pdfs(self) -> str | None:
        return self._text("PRINT_PDFS") or None

    @property
    def chromium(self) -> str | None:
        return self._text("PLAYWRIGHT_CHROMIUM") or None

    @property
    def npm_registry(self) -> str | None:
        return self._text("NPM_CONFIG_REGISTRY") or self._text("npm_config_registry") or None


def current(env: Mapping[str, str] | None = None) -> Settings:
    """The settings now: of ``os.environ``, or of ``env`` when given."""
    env = os.environ if env is None else env
    return Settings({name: env[name] for name in (*VARIABLES, *READ_TOO) if name in env})
