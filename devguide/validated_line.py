"""Each page's validated line: one line under its title saying what ran, as HTML.

The line names, for the page's blocks as they are now (``devguide.results``), how
many ran and passed on CPU and with which torch versions, how many CUDA blocks
ran on which GPU, and how many MPS- and XPU-only blocks no CI machine executed;
it links to the page's row of the validation report (``row_id``). The report
module's ``on_page_content`` puts it under the page's title.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath

from devguide import config, results
from devguide.report_words import DEVICE_NAMES, TEXT, plural
from devguide.results import (
    ACCELERATOR_KINDS,
    OTHER_DEVICES,
    PageStatus,
    Run,
    gpu_names,
)


def _torch(run: Run) -> str:
    return run.machine["torch"].split("+")[0]


def _mark(ok: bool | None) -> str:
    if ok is None:
        return '<span class="vr-icon vr-pending" aria-hidden="true">○</span> '
    cls, icon = ("vr-ok", "✓") if ok else ("vr-failed", "✗")
    return f'<span class="vr-icon {cls}" aria-hidden="true">{icon}</span> '


def line_parts(lang: str, st: PageStatus, cpu: Run | None, gpu: Run | None) -> list[str]:
    """The parts of a page's line, as HTML (empty: the page has nothing to run)."""
    t = TEXT[lang]
    parts = []
    if st.cells:
        parts.append(_mark(True) + t["cells"].format(n=st.cells, cells_word=plural(lang, st.cells, "cell", "cells")))
    return parts + cpu_parts(lang, st, cpu) + accelerator_parts(lang, st, gpu) + device_parts(lang, st)


def cpu_parts(lang: str, st: PageStatus, cpu: Run | None) -> list[str]:
    """The CPU blocks: one part per outcome, naming the torch versions it holds for
    (those that ran nothing of this page, e.g. skipped its only block, are not named)."""
    t = TEXT[lang]
    n = sum(map(len, st.cpu.values()))
    if not n:
        return []
    versions = st.versions or ([(_torch(cpu), cpu, st.cpu)] if cpu is not None else [])
    outcomes: dict[tuple, list[str]] = {}
    changed = 0
    for label, run, by in versions:
        p, f, u = (len(by.get(k, [])) for k in ("passed", "failed", "unrun"))
        if run is None or p + f == 0:
            continue
        mine = p + f + u  # not those the run skipped (an output shown for another version)
        key = ("failed", f, mine) if f else ("ok", mine, mine) if p == mine else ("some", p, mine)
        outcomes.setdefault(key, []).append(label)
        if not f and u:
            changed = max(changed, u)
    parts = []
    if not outcomes:
        parts.append(_mark(None) + t["cpu_none"].format(n=n, examples=plural(lang, n, "example", "examples")))
    for (outcome, k, mine), labels in outcomes.items():
        torch = t["versions_sep"].join(labels)
        if outcome == "failed":
            parts.append(_mark(False) + t["cpu_failed"].format(f=k, n=mine, torch=torch))
        elif outcome == "some":
            parts.append(_mark(True) + t["cpu_some"].format(p=k, n=mine, torch=torch))
        else:
            examples = plural(lang, mine, "example", "examples")
            parts.append(_mark(True) + t["cpu_ok"].format(n=mine, examples=examples, torch=torch))
    if changed:
        parts.append(_mark(None) + t["cpu_changed"].format(u=changed))
    return parts


def accelerator_parts(lang: str, st: PageStatus, gpu: Run | None) -> list[str]:
    """The CUDA blocks: what ran on the GPU, with the torch that ran there (a GPU
    machine's own build, often another version)."""
    t = TEXT[lang]
    parts = []
    for kind, name in ACCELERATOR_KINDS.items():
        by = st.acc.get(kind, {})
        n = sum(map(len, by.values()))
        if not n:
            continue
        p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
        examples = plural(lang, n, "example", "examples")
        where = html.escape(gpu_names(gpu.machine)) if gpu else ""
        ran_with = html.escape(t["gpu_torch"].format(torch=gpu.machine["torch"])) if gpu else ""
        if gpu is None or p + f == 0:
            parts.append(_mark(None) + t["acc_none"].format(n=n, acc=name, examples=examples))
        elif f:
            parts.append(_mark(False) + t["acc_failed"].format(f=f, n=n, acc=name, gpu=where, ran_with=ran_with))
        elif u:
            parts.append(_mark(True) + t["acc_some"].format(p=p, n=n, acc=name, gpu=where, ran_with=ran_with))
            parts.append(_mark(None) + t["acc_unrun"].format(u=u))
        else:
            parts.append(_mark(True) + t["acc_ok"].format(n=n, acc=name, gpu=where, ran_with=ran_with, examples=examples))
    return parts


def device_parts(lang: str, st: PageStatus) -> list[str]:
    """MPS- and XPU-only blocks: no CI machine has the device, so most were never executed."""
    t = TEXT[lang]
    parts = []
    for kind in OTHER_DEVICES:
        by = st.devices.get(kind)
        if not by:
            continue
        p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
        n = p + f + u
        examples = plural(lang, n if not u else u, "example", "examples")
        device = DEVICE_NAMES[kind]
        if f:
            parts.append(_mark(False) + t["device_failed"].format(f=f, n=n, device=device))
        elif u:
            parts.append(_mark(None) + t["device_unrun"].format(n=u, device=device, examples=examples))
        else:
            parts.append(_mark(True) + t["device_ok"].format(n=n, device=device, examples=examples))
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
    body = '<span class="vr-sep" aria-hidden="true"> · </span>'.join(f'<span class="vr-part">{p}</span>' for p in parts)
    if href:
        body = f'<a href="{html.escape(href)}" title="{TEXT[lang]["line_label"]}">{body}</a>'
    return f'<p class="validation-line">{body}</p>'


def page_language(page) -> str:
    """The language of a MkDocs page: its first folder (zh/…, en/…)."""
    first = page.file.src_uri.split("/", 1)[0]
    return first if first in config.LANGUAGES else config.DEFAULT_LANGUAGE


def report_file(lang: str, files):
    """The validation report page of a language, as MkDocs knows it (None outside a build)."""
    return files.get_file_from_path(f"{lang}/validation.md") if files is not None else None

