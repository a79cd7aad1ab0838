"""Each page's validated line: one line under its title saying what ran, as HTML.

The line names, for the page's blocks as they are now (``devguide.census.results``), how
many passed on CPU with the site's torch version, how many of the CUDA blocks ran
on a GPU ("k of n", with the GPU run's torch version; the GPU in a tooltip), and how many MPS- and
XPU-only blocks no CI machine executed. A part gets ✓ only when every block of its
kind passed, ✗ when one failed, ○ otherwise. It fits one line of a desktop page and
two of a phone's (tests/site); everything else is in the validation report, whose
row for the page it links (``row_id``). The report module's ``on_page_content``
puts it under the page's title.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath

from devguide import paths
from devguide.census import results
from devguide.census.results import (
    ACCELERATOR_KINDS,
    OTHER_DEVICES,
    PageStatus,
    Run,
    gpu_names,
)
from devguide.mkdocs_plugin.words import DEVICE_NAMES, TEXT, date, plural


def _torch(run: Run) -> str:
    return run.machine["torch"].split("+")[0]


def _mark(ok: bool | None) -> str:
    """✓ only when every block of the part passed, ✗ when one failed, ○ otherwise."""
    if ok is None:
        return '<span class="vr-icon vr-pending" aria-hidden="true">○</span> '
    cls, icon = ("vr-ok", "✓") if ok else ("vr-failed", "✗")
    return f'<span class="vr-icon {cls}" aria-hidden="true">{icon}</span> '


def _part(mark: bool | None, text: str, title: str = "") -> str:
    tip = f' title="{html.escape(title)}"' if title else ""
    return f'<span class="vr-part"{tip}>{_mark(mark)}{text}</span>'


def line_parts(lang: str, st: PageStatus, cpu: Run | None, gpu: Run | None) -> list[str]:
    """The parts of a page's line, as HTML (empty: the page has nothing to run).

    The line is short on purpose (one line on a desktop, two at most on a phone):
    the site's torch version (see ``results.cpu_runs``) and the GPU run's, the GPU's
    name only in a part's tooltip; the validation report has the rest."""
    t = TEXT[lang]
    parts = []
    if st.cells:
        parts.append(_part(True, t["cells"].format(n=st.cells, cells_word=plural(lang, st.cells, "cell", "cells"))))
    return parts + cpu_parts(lang, st, cpu) + accelerator_parts(lang, st, gpu) + device_parts(lang, st)


def cpu_parts(lang: str, st: PageStatus, cpu: Run | None) -> list[str]:
    """The CPU blocks, with the torch version of the site (the first run that ran any
    of them); another version's run appears only where it failed a block."""
    t = TEXT[lang]
    n = sum(map(len, st.cpu.values()))
    if not n:
        return []
    versions = st.versions or ([(_torch(cpu), cpu, st.cpu)] if cpu is not None else [])
    ran = [(label, by) for label, run, by in versions if run is not None and len(by.get("passed", [])) + len(by.get("failed", []))]
    if not ran:
        return [_part(None, t["cpu_none"].format(n=n, examples=plural(lang, n, "example", "examples")))]
    (torch, by), others = ran[0], ran[1:]
    p, f, u = (len(by.get(k, [])) for k in ("passed", "failed", "unrun"))
    mine = p + f + u  # not those the run skipped (an output shown for another version)
    examples = plural(lang, mine, "example", "examples")
    if f:
        parts = [_part(False, t["cpu_failed"].format(f=f, n=mine, torch=torch, examples=examples))]
    elif u:
        parts = [_part(None, t["cpu_some"].format(p=p, n=mine, u=u, torch=torch, examples=examples))]
    else:
        parts = [_part(True, t["cpu_ok"].format(n=mine, torch=torch, examples=examples))]
    for label, other in others:
        failed = len(other.get("failed", []))
        if failed:
            parts.append(_part(False, t["cpu_failed_other"].format(f=failed, torch=label)))
    return parts


def accelerator_parts(lang: str, st: PageStatus, gpu: Run | None) -> list[str]:
    """The CUDA blocks: "CUDA: k of n ran on a GPU (torch v)", ✓ only when k = n; the
    torch the GPU run used (a GPU machine's own build, often another version) on the
    line, which GPU in the tooltip."""
    t = TEXT[lang]
    parts = []
    for kind, name in ACCELERATOR_KINDS.items():
        by = st.acc.get(kind, {})
        n = sum(map(len, by.values()))
        if not n:
            continue
        p, f = len(by.get("passed", [])) if gpu else 0, len(by.get("failed", [])) if gpu else 0
        examples = plural(lang, n, "example", "examples")
        tip = t["gpu_tip"].format(gpu=gpu_names(gpu.machine), torch=gpu.machine["torch"], date=date(lang, gpu.generated)) if gpu and p + f else ""
        # the GPU run's torch on the line itself (often not the site's): a tooltip is
        # out of reach of touch and keyboard readers (review 2026-12-06, problem 4)
        torch = _torch(gpu) if gpu and p + f else ""
        if f:
            parts.append(_part(False, t["acc_failed"].format(f=f, n=n, acc=name, examples=examples, torch=torch), tip))
        elif p == n:
            parts.append(_part(True, t["acc_ok"].format(n=n, acc=name, examples=examples, torch=torch), tip))
        elif not p:
            parts.append(_part(None, t["acc_none"].format(n=n, acc=name, examples=examples), tip))
        else:
            parts.append(_part(None, t["acc_some"].format(p=p, n=n, acc=name, examples=examples, torch=torch), tip))
    return parts


def device_parts(lang: str, st: PageStatus) -> list[str]:
    """MPS- and XPU-only blocks: no CI machine has the device, so most were never
    executed; those never run are one part for both devices."""
    t = TEXT[lang]
    parts, never = [], []
    for kind in OTHER_DEVICES:
        by = st.devices.get(kind)
        if not by:
            continue
        p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
        n = p + f + u
        device = DEVICE_NAMES[kind]
        if f:
            parts.append(_part(False, t["device_failed"].format(f=f, n=n, device=device)))
        elif u:
            never.append((u, device))
        else:
            parts.append(_part(True, t["device_ok"].format(n=n, device=device, examples=plural(lang, n, "example", "examples"))))
    if never:
        total = sum(u for u, _ in never)
        devices = t["device_sep"].join(t["device_count"].format(n=u, device=d) for u, d in never)
        parts.append(_part(None, t["device_unrun"].format(devices=devices, examples=plural(lang, total, "example", "examples")), t["device_tip"]))
    return parts


def row_id(src: str) -> str:
    """The id of a page's row in the report: docs/en/async/streams.md → page-async-streams."""
    path = PurePosixPath(*PurePosixPath(src).parts[2:]).with_suffix("")
    parts = [p for p in path.parts if p != "index"] if path.name == "index" else list(path.parts)
    return "page-" + ("-".join(parts) or "home")


def badge(lang: str, src: str, href: str = "") -> str | None:
    """The line under a page's title, or None when the page has nothing to run."""
    st = results.page_status(src)
    parts = line_parts(lang, st, results.cpu_run(), results.gpu_run())
    if not parts:
        return None
    # the separator closes the part before it (an inline block): it never stands alone on a
    # line of its own when the line wraps (review 2026-12-06, problem 15)
    # (the space after it, between the parts, is where the line may break)
    sep = '<span class="vr-sep" aria-hidden="true"> ·</span>'
    body = "".join(p.removesuffix("</span>") + sep + "</span> " for p in parts[:-1]) + parts[-1]
    if href:
        body = f'<a href="{html.escape(href)}" title="{TEXT[lang]["line_label"]}">{body}</a>'
    # not page text for the search: it was the snippet of page-level results (problem 10)
    return f'<p class="validation-line" data-search-exclude>{body}</p>'


def page_language(page) -> str:
    """The language of a MkDocs page: its first folder (zh/…, en/…)."""
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in paths.LANGUAGES else paths.DEFAULT_LANGUAGE


def report_file(lang: str, files):
    """The validation report page of a language, as MkDocs knows it (None outside a build)."""
    return files.get_file_from_path(f"{lang}/validation.md") if files is not None else None

