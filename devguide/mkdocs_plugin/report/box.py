"""The validation report's numbers at a glance: the box under its title.

Three figures for the language's pages as they are now: CPU examples passed of
those that run on CPU (with the site's torch version), CUDA examples run on a GPU
of all CUDA examples (the GPU, its torch and the date as a note), and MPS/XPU
examples never run. ✓ only where every one passed, ✗ where one failed, ○ otherwise
(the rule of each page's line, ``devguide.mkdocs_plugin.report.validated_line``). ``devguide.mkdocs_plugin.report.validation_page``
puts the box under the report's title; ``counts`` also gives its totals sentence.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from devguide.census.results import OTHER_DEVICES, PageStatus, Run, gpu_names
from devguide.mkdocs_plugin.words import TEXT, date


def counts(some: Iterable[PageStatus]) -> dict[str, int]:
    """The totals of some pages' statuses: CPU blocks (passed, failed, changed since the
    run), CUDA blocks (acc_passed, acc_failed, acc_unrun), MPS/XPU blocks never executed, cells."""
    statuses = list(some)
    c = {k: sum(len(s.cpu.get(k, [])) for s in statuses) for k in ("passed", "failed", "unrun")}
    c.update({"acc_" + k: sum(len(s.acc.get("cuda", {}).get(k, [])) for s in statuses) for k in ("passed", "failed", "unrun")})
    c.update({kind: sum(len(s.devices.get(kind, {}).get("unrun", [])) for s in statuses) for kind in OTHER_DEVICES})
    c["cells"] = sum(s.cells for s in statuses)
    return c


def _ok(passed: int, failed: int, total: int) -> bool | None:
    return False if failed else True if total and passed == total else None


def _stat(ok: bool | None, value: str, label: str, note: str = "") -> str:
    cls, icon = {True: ("vr-ok", "✓"), False: ("vr-failed", "✗"), None: ("vr-pending", "○")}[ok]
    note = f'<span class="vr-stat-note">{html.escape(note)}</span>' if note else ""
    return (f'<div class="vr-stat"><span class="vr-stat-value"><span class="vr-icon {cls}" aria-hidden="true">{icon}</span> '
            f'{value}</span><span class="vr-stat-label">{label}</span>{note}</div>')


def summary_box(lang: str, statuses, torch: str, gpu: Run | None) -> str:
    """The box, as raw HTML (``torch``: the site's own version, the first CPU run's)."""
    t, c = TEXT[lang], counts(statuses)
    n, acc_n = c["passed"] + c["failed"] + c["unrun"], c["acc_passed"] + c["acc_failed"] + c["acc_unrun"]
    cpu_note = (t["box_cpu_failed"].format(f=c["failed"]) if c["failed"]
                else t["box_cpu_changed"].format(u=c["unrun"]) if c["unrun"] else "")
    stats = [_stat(_ok(c["passed"], c["failed"], n), t["box_of"].format(k=c["passed"], n=n), t["box_cpu"].format(torch=torch), cpu_note)]
    if acc_n:
        ran = t["gpu_tip"].format(gpu=gpu_names(gpu.machine), torch=gpu.machine["torch"], date=date(lang, gpu.generated)) if gpu else t["box_no_gpu"]
        failed = t["box_cuda_failed"].format(f=c["acc_failed"]) + " " if c["acc_failed"] else ""
        stats.append(_stat(_ok(c["acc_passed"], c["acc_failed"], acc_n), t["box_of"].format(k=c["acc_passed"], n=acc_n),
                           t["box_cuda"], failed + ran))
    never = sum(c[kind] for kind in OTHER_DEVICES)
    if never:
        stats.append(_stat(None, str(never), t["box_devices"], t["device_tip_all"]))
    return f'<div class="vr-summary" role="group" aria-label="{t["box_title"]}">' + "".join(stats) + "</div>"
