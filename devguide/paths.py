"""Where things are: the repository, its languages, the build outputs, the pinned torch.

The repository root is the folder this package sits in (``devguide/``'s
parent), or ``DEVGUIDE_ROOT`` when set (the harness's own tests run it on
scratch copies of the project). The languages come from ``mkdocs.yml`` (the
i18n plugin's list, default language first), so adding one is a config change.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devguide import settings

REPO = (settings.current().root or Path(__file__).resolve().parents[1]).resolve()
DOCS = REPO / "docs"
BUILD = REPO / "build"
SITE = BUILD / "site"
VALIDATION_JSON = BUILD / "validation.json"
OUTPUTS = BUILD / "artifacts" / "outputs"
# The GPU workflow's census and outputs (its artifact, downloaded by CI), or else
# the last GPU run recorded in the repository.
GPU = BUILD / "gpu"
GPU_RECORDED = REPO / ".ci" / "gpu-run"


@dataclass(frozen=True)
class Where:
    """A page line: ``path`` (as ``rel`` shows it) and ``line`` (1-based); its text is ``path:line``."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class DocsError(Exception):
    """A problem in a page: ``path``, ``line`` (None for a file as a whole) and
    ``message``, reported as ``path:line: message``. One that groups several problems
    keeps them in ``problems`` (each a DocsError, or its ``path:line: message`` text as
    the census keeps it), is at the first one's place, and is reported as them, one a line."""

    def __init__(self, path: str, line: int | None, message: str, problems: Sequence[str | DocsError] = ()):
        self.path, self.line, self.message = path, line, message
        self.problems = list(problems)
        super().__init__(path, line, message, self.problems)  # all four: a pickled copy is whole

    @classmethod
    def at(cls, where: Where, message: str) -> DocsError:
        return cls(where.path, where.line, message)

    @classmethod
    def grouped(cls, where: Where, problems: Sequence[str | DocsError]) -> DocsError:
        """Several problems of one page; ``where``: the first one's place."""
        return cls(where.path, where.line, "\n".join(map(str, problems)), problems)

    def __str__(self) -> str:
        if self.problems:
            return "\n".join(map(str, self.problems))
        return f"{self.path}:{self.line}: {self.message}" if self.line is not None else f"{self.path}: {self.message}"


def rel(path: Path | str) -> str:
    """A path as the messages show it: relative to the repository when inside it."""
    return _rel(str(path), os.getcwd())


@functools.lru_cache(maxsize=4096)
def _rel(path: str, cwd: str) -> str:
    # cached: the site build asks ~20 000 times for ~200 paths (resolve() is a system call per part)
    resolved = Path(cwd, path).resolve()
    try:
        return resolved.relative_to(REPO).as_posix()
    except ValueError:
        return resolved.as_posix()


@functools.cache
def yaml_loader():
    """The one loader of mkdocs.yml (the languages here, the nav and the Markdown
    extensions in devguide.source): its !ENV and !!python tags read as plain values
    (None). Made when first used: the block runner imports this module and no YAML."""
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # (libyaml when built)
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python", lambda loader, suffix, node: None)
    return Loader


def mkdocs_yml(path: Path | None = None) -> dict:
    import yaml

    return yaml.load(Path(path or REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml_loader())


@functools.lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """The site's languages, the default one first, as mkdocs.yml's i18n plugin lists them."""
    return languages_of(mkdocs_yml()) if (REPO / "mkdocs.yml").exists() else ("zh", "en")


def languages_of(cfg: dict) -> tuple[str, ...]:
    """The languages of a loaded mkdocs.yml, the default one first."""
    plugins = cfg.get("plugins") or []
    i18n = next((p["i18n"] for p in plugins if isinstance(p, dict) and "i18n" in p), None)
    locales = [lang["locale"] for lang in (i18n or {}).get("languages") or []]
    if not locales:
        raise DocsError("mkdocs.yml", None, "the i18n plugin lists no languages: the site's languages come from "
                        "plugins: - i18n: languages: - locale: zh (default: true), - locale: en")
    assert i18n is not None  # it lists languages
    default = next((lang["locale"] for lang in i18n["languages"] if lang.get("default")), locales[0])
    return (default, *[x for x in locales if x != default])


LANGUAGES: tuple[str, ...]  # (annotations only: both are read on first use, by __getattr__)
DEFAULT_LANGUAGE: str


def __getattr__(name: str):
    """LANGUAGES and DEFAULT_LANGUAGE, read from mkdocs.yml when first asked for: the
    block runner, which imports this module for REPO, never parses mkdocs.yml."""
    if name == "LANGUAGES":
        return languages()
    if name == "DEFAULT_LANGUAGE":
        return languages()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def url_prefix(lang: str) -> str:
    """The language's folder in the built site: "" for the default one, "en/" for the others."""
    return "" if lang == languages()[0] else f"{lang}/"


@functools.lru_cache(maxsize=1)
def pinned_torch() -> str:
    """The torch version pyproject.toml pins (``torch==2.13.0`` → ``2.13.0``)."""
    import tomllib

    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (pin,) = [d.split("==", 1)[1].strip() for d in deps if d.replace(" ", "").startswith("torch==")]
    return pin


def torch_version() -> str:
    """The installed torch's version without its local label (2.13.0+cpu → 2.13.0),
    read from its metadata: importing torch here would hold up the start of the block
    runner, which imports it too (a second on 2 cores)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:  # a torch built in place, not installed
        import torch

        return torch.__version__.split("+")[0]


def any_torch() -> bool:
    """``DOCS_TORCH=any`` (make test-cuda): run with the interpreter's own torch,
    whatever its version; ``DOCS_TORCH=2.15.0`` (make test-torch): with that
    version, the newest release or another one named; otherwise the installed
    torch must be the pinned one."""
    return settings.current().torch != ""


def named_torch() -> str | None:
    """The version ``DOCS_TORCH`` names (make test-torch), or None."""
    value = settings.current().torch
    return value if value not in ("", "any") else None


def torch_mode() -> str:
    """What the census records: "pinned" (make test), "any" (make test-cuda), or
    "named" (make test-torch: a second validated version, e.g. the newest release)."""
    return "named" if named_torch() else "any" if any_torch() else "pinned"


@functools.lru_cache(maxsize=1)
def newest_torch() -> str | None:
    """The newest release the pages are validated on beside the pinned one
    (pyproject.toml ``[tool.devguide] newest-torch``), or None."""
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return data.get("tool", {}).get("devguide", {}).get("newest-torch")


def outputs_dir() -> Path:
    """Where a run keeps what each block printed: build/artifacts/outputs/, or for a
    run with a named second torch build/artifacts/outputs-torch-<version>/, so that
    the two runs of one checkout do not overwrite each other's."""
    named = named_torch()
    return OUTPUTS.with_name(f"outputs-torch-{named}") if named else OUTPUTS


def device_available(kind: str) -> bool:
    """Can this process use a device of this kind (``cuda``, ``mps``, ``xpu``)? Works
    with any torch 2.x (``make test-cuda``), not only with those that have
    ``torch.accelerator``. Asked of torch in a process of its own (devguide.census.torch_facts)."""
    from devguide.census import torch_facts

    devices = torch_facts.facts()["devices"]
    if kind not in devices:
        raise ValueError(f"not a device mark: {kind}")
    return devices[kind]


def require_cuda() -> bool:
    return settings.current().require_cuda
