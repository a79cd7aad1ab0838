"""Each page's code as one file to download, made at build time from the blocks the tests run.

``page_script`` turns a page's blocks -- ``devguide.source.blocks.page_blocks``, the
harness's own list, includes (``--8<--``) expanded and continuations joined as
the tests run them -- into one ``.py`` in page order. Nothing is copied by hand,
so the file cannot drift from the page:

* a ``python`` block is its code, unchanged, under a ``# %%`` line that names its
  page line (editors and jupytext read ``# %%`` as cells);
* a CUDA-, MPS- or XPU-only block runs under ``if _has_cuda():`` (``_has_mps()``,
  ``_has_xpu()``; its lines indented, the lines inside a multi-line string left as
  they are, so the code means the same), a block that checks the pinned torch
  (``pinned``) under ``if _on_validated_torch():``: on another release the script
  warns once, at its top, which release the page was validated with, and goes on;
* the header names what the code imports beside torch and numpy (scikit-learn),
  the only packages a reader needs (the tests run every download in an empty
  folder with just those);
* an excused block (``skip(reason=…)``) and every ``bash`` block are commented
  out, with the reason or with "run it in a shell": the page's bash blocks start
  fresh processes (``torchrun``, environment variables read before Python
  starts, programs that must crash), which a Python script cannot be;
* a verified output follows its block as comment lines;
* the programs under ``snippets/`` that the page runs travel inside the file
  (``_SNIPPETS``) and are written out, each one that is missing, under the folder
  it runs from before its first block: the file runs alone.

Notebooks' downloads (``.ipynb`` with the build's outputs) are
``devguide.mkdocs_plugin.reader.notebook_downloads``. A download's name holds its section (``devices-numpy.py``), so
that no download can shadow a module when run in its own folder.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from devguide import paths
from devguide.source.blocks import page_blocks

CELL = "# %%"
SNIPPET_PATH = re.compile(r"\bsnippets/[\w./-]+\.py\b")

TEXT = {
    "zh": {
        "head": "本页的代码块，按页面顺序，与本站测试运行的代码相同。",
        "validated": "本站用 torch {torch} 在 CPU 上验证（测试里每个代码块各自在一个新进程中运行；这里它们在同一个进程里依次运行）。",
        "cells": "`# %%` 开始一个代码块（VS Code、PyCharm、Spyder 和 jupytext 把它当作单元）。",
        "cuda": "仅 CUDA 的代码块放在 `if _has_cuda():` 下面，没有 CUDA 设备时跳过。",
        "mps": "仅 MPS（苹果芯片）的代码块放在 `if _has_mps():` 下面，没有 MPS 设备时跳过。",
        "xpu": "仅 XPU（Intel 显卡）的代码块放在 `if _has_xpu():` 下面，没有 XPU 设备时跳过。",
        "pinned": "核对 torch 版本的代码块放在 `if _on_validated_torch():` 下面，只在 torch {torch} 上运行。",
        "needs": "运行它需要 torch、numpy，以及：{names}（`pip install {names_pip}`）。",
        "needs_only": "运行它只需要 torch 和 numpy。",
        "other_torch": "本页用 torch {torch} 验证，你装的是 torch {{}}：输出可能不同，核对版本的代码块已跳过。",
        "commented": "豁免的代码块和 bash 代码块已注释掉：bash 代码块请在 shell 里运行。",
        "snippets": "这些代码运行的程序就在本文件里（_SNIPPETS）：第一次运行时，本文件把还不存在的程序写到运行目录下的同一路径，不用另外下载：",
        "snippet_where": "  {path}（源文件：{repo}/blob/main/{path} ）",
        "source": "源文件",
        "page": "页面",
        "excused": "豁免，不运行：{reason}",
        "bash": "bash：在 shell 里运行",
        "bash_cuda": "bash，仅 CUDA：在有 CUDA 设备的机器上的 shell 里运行",
        "cuda_block": "仅 CUDA：没有 CUDA 设备时跳过",
        "mps_block": "仅 MPS：没有 MPS 设备时跳过",
        "xpu_block": "仅 XPU：没有 XPU 设备时跳过",
        "pinned_block": "核对 torch 版本：只在 torch {torch} 上运行",
        "output": "期望输出（已校验）：",
        "done": "运行完毕：本页代码到此结束（{n} 个代码块）",
    },
    "en": {
        "head": "This page's code blocks, in page order, exactly as the site's tests run them.",
        "validated": "Validated by the site with torch {torch} on CPU (the tests run each block in a fresh process; here they run one after another in one process).",
        "cells": "`# %%` starts a block (a cell for VS Code, PyCharm, Spyder and jupytext).",
        "cuda": "CUDA-only blocks run under `if _has_cuda():` and are skipped without a CUDA device.",
        "mps": "MPS-only (Apple silicon) blocks run under `if _has_mps():` and are skipped without an MPS device.",
        "xpu": "XPU-only (Intel GPU) blocks run under `if _has_xpu():` and are skipped without an XPU device.",
        "pinned": "Blocks that check the torch version run under `if _on_validated_torch():`, on torch {torch} only.",
        "needs": "It needs torch, numpy and: {names} (`pip install {names_pip}`).",
        "needs_only": "It needs only torch and numpy.",
        "other_torch": "This page was validated with torch {torch}; you have torch {{}}: outputs may differ, and the blocks that check the version are skipped.",
        "commented": "Excused blocks and bash blocks are commented out: run the bash blocks in a shell.",
        "snippets": "Programs this code runs are inside this file (_SNIPPETS): its first run writes each one that is missing at this path, under the folder you run it from; nothing else to fetch:",
        "snippet_where": "  {path} (source: {repo}/blob/main/{path} )",
        "source": "Source",
        "page": "Page",
        "excused": "excused, not run: {reason}",
        "bash": "bash: run it in a shell",
        "bash_cuda": "bash, CUDA only: run it in a shell on a machine with a CUDA device",
        "cuda_block": "CUDA only: skipped without a CUDA device",
        "mps_block": "MPS only: skipped without an MPS device",
        "xpu_block": "XPU only: skipped without an XPU device",
        "pinned_block": "checks the torch version: runs on torch {torch} only",
        "output": "Expected output (verified):",
        "done": "done: the end of this page's code ({n} blocks)",
    },
}

CUDA_HELPER = '''\
def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()
'''
# the guard of each kind of block that needs something the reader may not have
GUARDS = {"cuda": "_has_cuda()", "mps": "_has_mps()", "xpu": "_has_xpu()", "pinned": "_on_validated_torch()"}
HELPERS = {
    "cuda": CUDA_HELPER,
    "mps": '''\
def _has_mps() -> bool:
    import torch

    return torch.backends.mps.is_available()
''',
    "xpu": '''\
def _has_xpu() -> bool:
    import torch

    return hasattr(torch, "xpu") and torch.xpu.is_available()
''',
    "pinned": '''\
def _on_validated_torch() -> bool:
    return _TORCH == VALIDATED_TORCH
''',
}
# the programs under snippets/ that a page's code runs travel inside its download, written out
# (under the folder it runs from, where the page's code looks for them) before its first block
SNIPPETS_WRITER = '''\
def _write_snippets() -> None:
    from pathlib import Path

    for name, text in _SNIPPETS.items():
        target = Path(name)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")


_write_snippets()
'''
VERSION_CHECK = '''\
import warnings

import torch

VALIDATED_TORCH = "{torch}"
_TORCH = torch.__version__.split("+")[0]
if _TORCH != VALIDATED_TORCH:
    warnings.warn({message!r}.format(_TORCH), stacklevel=1)
'''


def page_language(page: Path) -> str:
    """The language of a page of docs/ (the default one for a page elsewhere, e.g. a test's)."""
    path = Path(page).resolve()
    parts = path.relative_to(paths.DOCS).parts if path.is_relative_to(paths.DOCS) else ()
    return parts[0] if parts and parts[0] in paths.LANGUAGES else paths.DEFAULT_LANGUAGE


def commented(text: str, prefix: str = "# ") -> list[str]:
    return [(prefix + line).rstrip() for line in text.rstrip("\n").splitlines()]


def string_continuation_lines(code: str) -> set[int]:
    """1-based lines that begin inside a multi-line string: indenting them would
    change the string, so the CUDA guard leaves them alone."""
    inside: set[int] = set()
    for node in ast.walk(ast.parse(code)):
        is_text = isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
        )
        if is_text and isinstance(node, ast.expr) and node.end_lineno and node.end_lineno > node.lineno:
            inside.update(range(node.lineno + 1, node.end_lineno + 1))
    return inside


def guarded(code: str, condition: str = "_has_cuda()") -> str:
    """``code`` under ``if condition:``, meaning the same (see string_continuation_lines)."""
    keep = string_continuation_lines(code)
    body = [
        line if n in keep or not line.strip() else "    " + line
        for n, line in enumerate(code.rstrip("\n").splitlines(), 1)
    ]
    return f"if {condition}:\n" + "\n".join(body) + "\n"


@dataclass
class Cell:
    """One block of the page as it appears in the script."""

    where: str  # docs/en/…:line
    kind: str  # python | cuda | mps | xpu | pinned | bash | excused (the first guard's name)
    code: str  # as the harness runs it
    text: str  # as the script holds it (under the cell line)
    guards: tuple[str, ...] = ()  # the GUARDS it runs under


def cells(page: Path, repo: str = "") -> list[Cell]:
    """The page's blocks as script cells. ``{{ repo_url }}`` (devguide.mkdocs_plugin.reader.repository) is
    filled in the commented-out cells, the only ones a page may write it in."""
    from devguide.mkdocs_plugin.reader import repository

    lang = page_language(page)
    t = TEXT.get(lang, TEXT["en"])
    found = []
    for block in page_blocks(page):
        names = block.mark_names
        lines: list[str]
        kinds: list[str] = []
        if "skip" in names:
            (reason,) = [m.kwargs["reason"] for m in block.marks if m.name == "skip"]
            kind, label = "excused", t["excused"].format(reason=reason)
            lines = commented(repository.substitute(block.code, repo or None))
        elif block.language == "bash":
            kind = "bash"
            label = t["bash_cuda"] if "cuda" in names else t["bash"]
            lines = commented(repository.substitute(block.code, repo or None))
        elif names & set(GUARDS):
            kinds = [k for k in GUARDS if k in names]
            kind = kinds[0]
            label = " · ".join(t[f"{k}_block"].format(torch=paths.pinned_torch()) for k in kinds)
            lines = guarded(block.code, " and ".join(GUARDS[k] for k in kinds)).rstrip("\n").splitlines()
        else:
            kind, label = "python", ""
            lines = block.code.rstrip("\n").splitlines()
        expected = block.expected_output
        if expected is not None:
            lines += ["", "# " + t["output"], *commented(expected, "# | ")]
        header = f"{CELL} {block.where}" + (f" · {label}" if label else "")
        found.append(Cell(block.where, kind, block.code, "\n".join([header, *lines]) + "\n", tuple(kinds)))
    return found


def needed_snippets(page: Path) -> list[str]:
    """Files under snippets/ that the page's code names (run or shown), not included ones."""
    names = []
    for block in page_blocks(page):
        for path in SNIPPET_PATH.findall(block.code):
            if path not in names and (paths.REPO / path).is_file():
                names.append(path)
    return names


def imported_modules(code: str) -> set[str]:
    """Top-level names of the modules ``code`` imports, but those it imports only
    inside a ``try`` that catches ImportError (optional ones)."""
    tree = ast.parse(code)
    optional: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            h.type is None or "ImportError" in ast.unparse(h.type) or "ModuleNotFoundError" in ast.unparse(h.type)
            for h in node.handlers
        ):
            optional.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


BESIDE = {"torch", "numpy"}  # what every download may assume


@functools.cache
def _module_owners() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return dict(packages_distributions())


def needed_packages(page: Path) -> list[str]:
    """The distributions (pip names) that the page's run code and the snippets it
    runs import, beside torch, numpy and the standard library."""
    import sys

    modules: set[str] = set()
    for c in cells(page):
        if c.kind not in ("bash", "excused"):
            modules |= imported_modules(c.code)
    for path in needed_snippets(page):
        modules |= imported_modules((paths.REPO / path).read_text(encoding="utf-8"))
    local = {p.stem for p in (paths.REPO / "snippets").rglob("*.py")} | {"snippets"}
    owners = _module_owners()
    names = set()
    for module in modules - set(sys.stdlib_module_names) - BESIDE - local:
        names.update(owners.get(module, [module]))
    return sorted(names - BESIDE, key=str.lower)


def page_script(page: Path, title: str = "", url: str = "", repo: str = "") -> str:
    """The page's code blocks as one runnable Python file (see the module's docstring)."""
    from devguide.mkdocs_plugin.reader import repository

    page = Path(page).resolve()
    lang = page_language(page)
    t = TEXT.get(lang, TEXT["en"])
    torch = paths.pinned_torch()
    repo = repo or repository.repo_url()
    all_cells = cells(page, repo)
    guards = [k for k in GUARDS if any(k in c.guards for c in all_cells)]
    packages = needed_packages(page)
    head = [f"# {title}" if title else None, f"# {t['page']}: {url}" if url else None,
            f"# {t['source']}: {repo}/blob/main/{paths.rel(page)}", "#",
            "# " + t["head"], "# " + t["validated"].format(torch=torch),
            "# " + (t["needs"].format(names=", ".join(packages), names_pip=" ".join(packages))
                    if packages else t["needs_only"]),
            "# " + t["cells"]]
    head += ["# " + t[k].format(torch=torch) for k in guards]
    if any(c.kind in ("bash", "excused") for c in all_cells):
        head.append("# " + t["commented"])
    snippets = needed_snippets(page)
    if snippets:
        head += ["#", "# " + t["snippets"]]
        head += ["#" + t["snippet_where"].format(path=p, repo=repo) for p in snippets]
    parts = ["\n".join(line for line in head if line is not None) + "\n"]
    parts.append(VERSION_CHECK.format(torch=torch, message=t["other_torch"].format(torch=torch)))
    parts += [HELPERS[k] for k in guards]
    if snippets:
        parts.append(snippets_source(snippets) + "\n\n" + SNIPPETS_WRITER)
    parts += [c.text for c in all_cells]
    # a page whose code prints nothing on CPU still shows that it ran (review 2026-12-06, problem 20)
    parts.append(f"print({t['done'].format(n=len(all_cells))!r})\n")
    return "\n\n".join(parts)


def snippets_source(names: list[str]) -> str:
    """``_SNIPPETS = {path: the program's text}`` for the programs ``names`` (paths under the repository)."""
    items = []
    for name in names:
        text = (paths.REPO / name).read_text(encoding="utf-8")
        # readable as the program it is, where a raw string can hold it
        literal = f"r'''{text}'''"
        try:
            readable = ast.literal_eval(literal) == text
        except SyntaxError:
            readable = False
        literal = literal if readable else repr(text)
        items.append(f"    {name!r}: {literal},")
    return "_SNIPPETS = {\n" + "\n".join(items) + "\n}"


def split_cells(script: str) -> list[tuple[str, str]]:
    """(cell line, body) of each ``# %%`` cell of a script, in order: how a test
    reads a downloaded file back."""
    found: list[tuple[str, list[str]]] = []
    for line in script.splitlines(True):
        if line.startswith(CELL + " "):
            found.append((line.rstrip("\n"), []))
        elif found:
            found[-1][1].append(line)
    return [(head, "".join(body)) for head, body in found]


# --------------------------------------------------------------------------- where the files go


def site_path(page: Path, suffix: str) -> str:
    """Where a page's file lives in the built site, beside the source's own layout:
    ``docs/zh/devices/moving.md`` → ``devices/moving.md``, ``docs/en/index.md`` →
    ``en/index.md``. Relative links in the served Markdown then resolve as in the
    sources. A download (``.py``, ``.ipynb``) is in the same folder under its
    download name: ``devices/devices-moving.py``."""
    lang, *rest = Path(page).resolve().relative_to(paths.DOCS).parts
    path = PurePosixPath(*rest).with_suffix(suffix)
    if suffix in DOWNLOADS:
        path = path.with_name(download_name(page, suffix))
    return paths.url_prefix(lang) + path.as_posix()


DOWNLOADS = (".py", ".ipynb")


def download_name(page: Path, suffix: str) -> str:
    """The name a download gets: the page's path under its language, joined with
    "-" (``devices-numpy.py``, ``reference-errors-numpy.py``; an index page is its
    folder's: ``getting-started.py``). A name with a "-" is no module name, so a
    download run in its own folder shadows no module (``numpy.py`` would hide numpy)."""
    parts = list(PurePosixPath(Path(page).resolve().relative_to(paths.DOCS).as_posix()).with_suffix("").parts[1:])
    if parts[-1] == "index":
        parts.pop()
    return "-".join(parts or ["pytorch-device-guide"]) + suffix


# --------------------------------------------------------------------------- the site's downloads, listed on a page

OFFLINE_ZIP = "pytorch-device-guide-offline.zip"
MARKER = "<!-- downloads -->"

LIST_TEXT = {
    "zh": {
        "offline": "**离线版**：[{name}]({zip})（{size}）：整个站点打成一个压缩包，解压后用浏览器打开其中的 `index.html`，不联网也能浏览和搜索。",
        "print": "**打印版**：[{title}]({print})：所有页面合成一页，可以打印或另存为 PDF。",
        "print_pdf": "**打印版**：[{title}]({print})：所有页面合成一页，可以直接打印；也可以下载排好版的 [PDF]({pdf})（{size}）。",
        "llms": "**Markdown 版**：[llms.txt]({llms}) 列出每一页的 Markdown 源文件（代码块保留语言标记，是经过测试的代码），方便离线阅读或交给大模型。",
        "code": "**每一页的代码**：页面标题旁的“下载本页代码”把这一页的代码块按顺序合成一个 `.py` 文件；两个笔记本还可以下载 `.ipynb`。",
    },
    "en": {
        "offline": "**Offline copy**: [{name}]({zip}) ({size}): the whole site in one archive; unpack it and open its `index.html` in a browser to read and search without a network.",
        "print": "**Print version**: [{title}]({print}): every page on one page, to print or save as PDF.",
        "print_pdf": "**Print version**: [{title}]({print}): every page on one page, to print; or download it ready-made as [PDF]({pdf}) ({size}).",
        "llms": "**Markdown**: [llms.txt]({llms}) lists each page's Markdown source (code blocks keep their language; it is the tested code), to read offline or to hand to a language model.",
        "code": "**Each page's code**: \"Download this page's code\" next to a page's title puts the page's code blocks, in order, into one `.py` file; the two notebooks also come as `.ipynb`.",
    },
}


def size_text(size: int) -> str:
    return f"{size / 2**20:.1f} MB" if size >= 2**20 else f"{max(1, round(size / 2**10))} KB"


def downloads_list(lang: str, links: dict[str, str], print_title: str, zip_size: int | None, pdf_size: int | None = None) -> str:
    """The Markdown list that replaces ``<!-- downloads -->`` (home page, getting
    started). ``links``: where the offline zip, the print page, its PDF and llms.txt
    are, relative to the page; ``zip_size`` / ``pdf_size`` None when this build
    has no offline copy / no PDF: then the list does not offer it (and says nothing
    about how the site is built)."""
    t = LIST_TEXT.get(lang, LIST_TEXT["en"])
    items = [t["offline"].format(name=OFFLINE_ZIP, zip=links["zip"], size=size_text(zip_size))] if zip_size is not None else []
    if pdf_size is not None:
        items.append(t["print_pdf"].format(title=print_title, print=links["print"], pdf=links["pdf"], size=size_text(pdf_size)))
    else:
        items.append(t["print"].format(title=print_title, print=links["print"]))
    items += [t["llms"].format(llms=links["llms"]), t["code"]]
    return "\n".join(f"- {item}" for item in items) + "\n"
