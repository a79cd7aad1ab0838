"""The test results rendered into the site (run by the MkDocs plugin ``devguide``).

The "Validation report" page (``<!-- validation-report -->``, ``render``) opens
with a box of its numbers (``devguide.mkdocs_plugin.report.box``), then shows where the results come from (the machines), the totals, a row per page with a
result column per torch version, the CUDA, MPS and XPU blocks, the failed and
the excused blocks, and the CUDA blocks still waiting for a GPU. Each page gets
one line under its title saying what ran (``devguide.mkdocs_plugin.report.validated_line``), linking
to the page's row of the report; ``<!-- gpu-output -->`` after a CUDA-only block
shows what it printed on a GPU (``devguide.mkdocs_plugin.report.gpu_outputs``). This module holds the
two event handlers that put them into the site, ``on_page_markdown`` and
``on_page_content``.

The results themselves come from ``devguide.census.results`` (the census files, a
result counting only while the block's hash is the one that ran), the words from
``devguide.mkdocs_plugin.words``. Notebook cells run while the site is built (a raising
cell fails the build), so a built notebook page has run them. When the page was
last changed is shown by mkdocs-git-revision-date-localized-plugin, not here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from devguide import paths
from devguide.census import results
from devguide.census.results import OTHER_DEVICES, Block, PageStatus, Run, gpu_names
from devguide.mkdocs_plugin.report.box import counts, summary_box
from devguide.mkdocs_plugin.report.gpu_outputs import GPU_MARKER, gpu_outputs
from devguide.mkdocs_plugin.report.validated_line import (
    badge,
    page_language,
    report_file,
    row_id,
)
from devguide.mkdocs_plugin.words import DEVICE_NAMES, TEXT, date, plural, reason
from devguide.source.fences import notebooks, pages

MARKER = "<!-- validation-report -->"


def page_title(path: Path) -> str:
    """A page's H1 as written (a notebook's first ``# # Title``), without its { #anchor }."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return path.stem
    pattern = r"^# # (.+)$" if path.suffix == ".py" else r"^# (.+)$"
    m = re.search(pattern, text, re.M)
    return re.sub(r"\s*\{[^}]*\}\s*$", "", m.group(1)).strip() if m else path.stem


def _inline(text: str) -> str:
    """Escape, then `code` → <code>code</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def nav_order(lang: str, mkdocs_config=None) -> list[tuple[str | None, list[str]]]:
    """(section title, page paths relative to the language folder), in navigation order;
    pages missing from the navigation come last, sorted."""
    groups: list[tuple[str | None, list[str]]] = []
    translate: dict[str, str] = {}
    if mkdocs_config is not None:
        i18n = mkdocs_config.plugins.get("i18n")
        if i18n is not None:
            for language in i18n.config.languages:
                if language.locale == lang:
                    translate = language.nav_translations or {}

    def walk(items, section):
        for item in items or []:
            if isinstance(item, str):
                section_pages(section).append(item)
            elif isinstance(item, dict):
                for title, value in item.items():
                    if isinstance(value, list):
                        walk(value, translate.get(title, title))
                    elif isinstance(value, str):
                        section_pages(section).append(value)

    def section_pages(section):
        if not groups or groups[-1][0] != section:
            groups.append((section, []))
        return groups[-1][1]

    if mkdocs_config is not None:
        walk(mkdocs_config.get("nav"), None)
    listed = {p for _, ps in groups for p in ps}
    root = paths.DOCS / lang
    rest = sorted(
        p.relative_to(root).as_posix() for p in [*pages(), *notebooks()]
        if p.is_relative_to(root) and p.relative_to(root).as_posix() not in listed
    )
    if rest:
        groups.append((None, rest))
    return groups


def _cell_cpu(t, st: PageStatus, by: dict[str, list[Block]] | None = None, first: bool = True) -> str:
    """One torch version's cell (``by``: its results; the pinned run's by default).
    Notebook cells ran when the site was built: shown in the first column."""
    if st.cells:
        return t["cell_cells"].format(n=st.cells) if first else "—"
    by = st.cpu if by is None else by
    p, f, s, u = (len(by.get(k, [])) for k in ("passed", "failed", "skipped", "unrun"))
    n = p + f + u  # the skipped ones show another version's output
    if not n + s:
        return "—"
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if not p and not s:
        return t["cell_none"].format(n=n)
    text = [t["cell_ok"].format(n=n) if p == n else t["cell_some"].format(p=p, n=n)] if p else []
    if s:
        text.append(t["cell_skipped"].format(n=s))
    if u:
        text.append(t["cell_changed"].format(u=u))
    return " · ".join(text)


def _cell_device(t, st: PageStatus, kind: str) -> str:
    by = st.devices.get(kind)
    if not by:
        return "—"
    p, f, u = (len(by[k]) for k in ("passed", "failed", "unrun"))
    n = p + f + u
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if u:
        return t["not_executed"].format(n=n)
    return t["cell_ok"].format(n=n)


def _cell_acc(t, st: PageStatus, kind: str) -> str:
    by = st.acc.get(kind, {})
    p, f, u = (len(by.get(k, [])) for k in ("passed", "failed", "unrun"))
    n = p + f + u
    if not n:
        return "—"
    if f:
        return f'<span class="vr-failed">{t["cell_failed"].format(f=f, n=n)}</span>'
    if p and u:
        return f'{t["cell_some"].format(p=p, n=n)} · {t["cell_unrun"].format(u=u)}'
    if p:
        return t["cell_ok"].format(n=n)
    return t["cell_none"].format(n=n)


def _link(lang: str, rel_path: str, files, report_file) -> str:
    """The URL of a page from the report page (the site's own URL scheme: offline builds differ)."""
    if files is not None and report_file is not None:
        target = files.get_file_from_path(f"{lang}/{rel_path}")
        if target is not None:
            return target.url_relative_to(report_file)
    stem = PurePosixPath(rel_path).with_suffix("")
    url = "" if stem.as_posix() == "index" else (stem.parent if stem.name == "index" else stem).as_posix() + "/"
    return "../" + url


# --------------------------------------------------------------------------- the report page


@dataclass
class _Report:
    """What every section of one language's report reads: its pages in navigation
    order and their results, and the site's files for the links."""

    lang: str
    groups: list[tuple[str | None, list[str]]]
    statuses: dict[str, PageStatus]
    files: object = None
    report_file: object = None

    @property
    def t(self) -> dict[str, str]:
        return TEXT[self.lang]

    def title_and_href(self, rel: str) -> tuple[str, str]:
        """A page's title (HTML) and its URL from the report page (escaped)."""
        title = _inline(page_title(paths.DOCS / self.lang / rel))
        return title, html.escape(_link(self.lang, rel, self.files, self.report_file))


def _report(lang: str, mkdocs_config=None, files=None) -> _Report:
    cpu, gpu, others = results.cpu_run(), results.gpu_run(), results.other_cpu_runs()
    groups = nav_order(lang, mkdocs_config)
    statuses = {rel: results.page_status(f"docs/{lang}/{rel}", cpu, gpu, others) for _, rels in groups for rel in rels}
    return _Report(lang, groups, statuses, files, report_file(lang, files))


def render(lang: str, mkdocs_config=None, files=None, r: _Report | None = None) -> str:
    """The report page's Markdown, which replaces MARKER."""
    cpu, gpu = results.cpu_run(), results.gpu_run()
    others = results.other_cpu_runs()
    r = r or _report(lang, mkdocs_config, files)
    # a result column per torch version (the pinned one and each make test-torch run)
    labels = [label for label, _ in results.cpu_runs(cpu, others)]
    lines = _machines(r, cpu, gpu, others)
    lines += _totals(r)
    lines += [f"## {r.t['pages']} {{ #pages }}", "", _table(r, labels), ""]
    lines += _failed(r, gpu, several=len(labels) > 1)
    lines += _per_page(r, "excused", "excused", "excused_none", lambda s: [
        r.t["excused_item"].format(line=b.line, language=b.language, reason=html.escape(reason(lang, b.reason)))
        for b in s.excused
    ])
    return "\n".join(lines + _waiting(r))


def _cpu_name(m: dict) -> str:
    return m.get("cpu", "?") + (f" ({m['cpu_capability']})" if m.get("cpu_capability") else "")


def _machines(r: _Report, cpu: Run | None, gpu: Run | None, others: list[Run]) -> list[str]:
    """Where the results come from: the CPU run, each make test-torch run, the GPU run."""
    lang, t = r.lang, r.t
    lines = [f"## {t['machines']} {{ #machines }}", ""]
    if cpu:
        m = cpu.machine
        lines.append("- " + t["cpu_machine"].format(
            date=date(lang, cpu.generated), cpu=_cpu_name(m),
            os=m.get("os", "?"), python=m["python"], torch=m["torch"], source=t["src_" + cpu.source]
            + (t["src_reused"].format(n=cpu.reused, date=date(lang, cpu.reused_since)) if cpu.reused else ""),
        ))
    else:
        lines.append("- " + t["no_cpu"])
    for label, run in results.cpu_runs(cpu, others):
        if run is not None and run is not cpu:
            lines.append("- " + _other_run(r, label, run))
    if gpu:
        m = gpu.machine
        host = " · ".join(x for x in (m.get("cpu"), m.get("os")) if x)
        lines.append("- " + t["gpu_machine"].format(
            date=date(lang, gpu.generated), gpus=gpu_names(m), cuda=m.get("cuda", "?"),
            host=host + " · " if host else "", python=m["python"], torch=m["torch"], source=t["src_" + gpu.source],
        ))
    else:
        lines.append("- " + t["no_gpu"])
    return lines + [""]


def _other_run(r: _Report, label: str, run: Run) -> str:
    """A make test-torch run: its machine and what it passed of the pages as they are now."""
    lang, m = r.lang, run.machine
    by = [b for s in r.statuses.values() for lb, _, b in s.versions if lb == label]
    count = {k: sum(len(b.get(k, [])) for b in by) for k in ("passed", "failed", "skipped", "unrun")}
    return r.t["other_run"].format(
        date=date(lang, run.generated), cpu=_cpu_name(m),
        os=m.get("os", "?"), python=m.get("python", "?"), torch=m["torch"],
        passed=count["passed"], failed=count["failed"], skipped=count["skipped"], changed=count["unrun"],
        passed_word=plural(lang, count["passed"], "block", "blocks"),
        changed_word=plural(lang, count["unrun"], "block", "blocks"),
        are="is" if count["unrun"] == 1 else "are",  # English only
        source=r.t["src_other"].format(torch=label),
    )


def _totals(r: _Report) -> list[str]:
    """The language's totals, the twins tested once, the blocks no CI machine executed."""
    t, c = r.t, counts(r.statuses.values())
    lines = [t["totals"].format(
        n=c["passed"] + c["failed"] + c["unrun"], p=c["passed"], f=c["failed"], u=c["unrun"],
        acc_n=c["acc_passed"] + c["acc_failed"] + c["acc_unrun"], acc_p=c["acc_passed"], acc_f=c["acc_failed"], acc_u=c["acc_unrun"],
        cells=c["cells"],
    ), ""]
    data, recorded = results.load()
    shared = sum(1 for f in data["fences"] if f.get("ran_with")) if recorded else 0
    if shared:
        lines += [t["shared"].format(n=shared), ""]
    unexecuted = {kind: c[kind] for kind in OTHER_DEVICES}
    if any(unexecuted.values()):
        lines += [t["unexecuted"].format(**unexecuted), ""]
    return lines


def _table(r: _Report, labels: list[str]) -> str:
    """The pages' table: raw HTML (row ids for the pages' links, labels for the phone layout)."""
    t = r.t
    heads = [
        t["col_page"], *(t["result_head"].format(torch=label) for label in labels), t["col_acc"],
        *(t["col_device"].format(device=DEVICE_NAMES[kind]) for kind in OTHER_DEVICES), t["col_outputs"], t["col_excused"],
    ]
    rows = ['<table class="validation-table">', "<thead><tr>" + "".join(f'<th scope="col">{h}</th>' for h in heads) + "</tr></thead>", "<tbody>"]
    for section, rels in r.groups:
        if section:
            rows.append(f'<tr class="vt-section"><th colspan="{len(heads)}" scope="rowgroup">{_inline(section)}</th></tr>')
        for rel in rels:
            st = r.statuses[rel]
            if not (st.blocks or st.cells):
                continue
            title, href = r.title_and_href(rel)
            cells = [
                *(_cell_cpu(t, st, by, first=i == 0) for i, (_, _, by) in enumerate(st.versions or [(x, None, st.cpu) for x in labels])),
                _cell_acc(t, st, "cuda"),
                *(_cell_device(t, st, kind) for kind in OTHER_DEVICES),
                str(st.outputs) if st.outputs else "—",
                str(len(st.excused)) if st.excused else "—",
            ]
            rows.append(
                f'<tr id="{row_id(st.page)}"><th scope="row"><a href="{href}">{title}</a></th>'
                + "".join(f'<td data-label="{h}">{c}</td>' for h, c in zip(heads[1:], cells, strict=True))
                + "</tr>"
            )
    return "\n".join([*rows, "</tbody>", "</table>"])


def _per_page(r: _Report, title_key: str, anchor: str, none_key: str, items_of) -> list[str]:
    """A section listing, page by page, what ``items_of`` finds in each page's results."""
    out = [f"## {r.t[title_key]} {{ #{anchor} }}", ""]
    found = False
    for _, rels in r.groups:
        for rel in rels:
            items = items_of(r.statuses[rel])
            if not items:
                continue
            found = True
            title, href = r.title_and_href(rel)
            out.append(f'- <a href="{href}">{title}</a>')
            out += [f"    - {item}" for item in items]
    if not found:
        out.append(r.t[none_key])
    return out + [""]


def _failed(r: _Report, gpu: Run | None, several: bool) -> list[str]:
    """The failed blocks: on CPU (naming the torch version when there are several), on the GPU."""
    t = r.t
    gpu_where = gpu_names(gpu.machine) if gpu else "GPU"
    return _per_page(r, "failed", "failed", "failed_none", lambda s: [
        t["failed_item"].format(
            line=b.line, language=b.language,
            where=t["on_cpu_version"].format(torch=label) if several else t["on_cpu"],
        )
        for label, _, by in s.versions for b in by.get("failed", [])
    ] + [
        t["failed_item"].format(line=b.line, language=b.language, where=html.escape(gpu_where))
        for b in s.acc.get("cuda", {}).get("failed", [])
    ])


def _waiting(r: _Report) -> list[str]:
    """CUDA blocks waiting for a GPU run: a folded list (it can be long)."""
    t, waiting = r.t, []
    for _, rels in r.groups:
        for rel in rels:
            blocks = r.statuses[rel].acc.get("cuda", {}).get("unrun", [])
            if blocks:
                title, href = r.title_and_href(rel)
                items = "".join(f"<li>{t['pending_item'].format(line=b.line, language=b.language)}</li>" for b in blocks)
                waiting.append(f'<li><a href="{href}">{title}</a><ul>{items}</ul></li>')
    if not waiting:
        return []
    n = sum(len(s.acc.get("cuda", {}).get("unrun", [])) for s in r.statuses.values())
    return [
        f'<details class="vr-waiting" id="not-yet-on-gpu"><summary>{t["pending_title"]} ({n})</summary>'
        f'<ul>{"".join(waiting)}</ul></details>', "",
    ]


# --------------------------------------------------------------------------- the event handlers


# --------------------------------------------------------------------------- what ran, in the pages' prose

# "<!-- torch-runs:report -->" (the report's introduction) and "<!-- torch-runs:install -->"
# (getting started): which torch versions the examples ran on, said from the recorded
# runs (review 2026-12-06, problem 2: both pages claimed a run on the newest release
# that no file of the build held)
TORCH_RUNS = re.compile(r"<!-- torch-runs:(report|install) -->")
RUNS_TEXT = {
    "zh": {
        "report_both": "CPU 的结果每个 torch 版本一列：{pinned} 来自 `make test`，{others} 来自 `make test-torch`（`build/validation-torch-<版本>.json`）。",
        "report_one": "CPU 的结果只有 torch {pinned} 一列（来自 `make test`）；最新发布的 {newest} 在这次构建里没有记录到运行结果，`make test-torch` 运行之后才会多出它的一列。",
        "install_both": "本站的每个示例都在 torch **{pinned}** 上验证，并在最新发布的 **{newest}** 上再验证一遍（[验证报告](../validation.md)里各有一列）；{short} 打印的内容不一样的地方，页面上两个版本的输出都会给出。",
        "install_one": "本站的每个示例都在 torch **{pinned}** 上验证。最新发布的 **{newest}** 目前没有记录到运行结果（[验证报告](../validation.md)只有 {pinned} 一列），所以页面上标明是 {short} 的输出还没有核对过。",
    },
    "en": {
        "report_both": "The CPU results have a column per torch version: {pinned} from `make test`, {others} from `make test-torch` (`build/validation-torch-<version>.json`).",
        "report_one": "The CPU results have one column, torch {pinned} (from `make test`): no run on the newest release, {newest}, is recorded in this build; `make test-torch` adds its column.",
        "install_both": "Every example on this site is validated with torch **{pinned}**, and again with the newest release, **{newest}** (the [validation report](../validation.md) has a column for each); where {short} prints something else, the page shows both outputs.",
        "install_one": "Every example on this site is validated with torch **{pinned}**. No run on the newest release, **{newest}**, is on record (the [validation report](../validation.md) has the {pinned} column only), so the outputs a page marks as {short}'s are not checked yet.",
    },
}


def torch_runs(lang: str, where: str, runs: list[tuple[str, Run | None]] | None = None) -> str:
    """The sentence of ``where`` (report | install) about the torch versions the
    examples ran on: the pinned run's and each recorded run of another version
    (``results.cpu_runs``); the newest release (pyproject.toml) named as not run
    when no run of it is recorded."""
    runs = runs if runs is not None else results.cpu_runs()
    t = RUNS_TEXT.get(lang, RUNS_TEXT["en"])
    pinned = runs[0][0] if runs else paths.pinned_torch()
    others = [label for label, run in runs[1:] if run is not None]
    newest = paths.newest_torch() or (others[-1] if others else pinned)
    short = ".".join(newest.split(".")[:2])
    if where == "report":
        key = "report_both" if others else "report_one"
    else:
        key = "install_both" if newest in others else "install_one"
    sep = "、" if lang == "zh" else ", "
    return t[key].format(pinned=pinned, others=sep.join(others), newest=newest, short=short)


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang = page_language(page)
    if "<!-- torch-runs:" in markdown:
        markdown = TORCH_RUNS.sub(lambda m: torch_runs(lang, m.group(1)), markdown)
    if GPU_MARKER in markdown:
        markdown = gpu_outputs(markdown, Path(page.file.abs_src_path), f"docs/{page.file.src_uri}", lang)
    if MARKER not in markdown:
        return markdown
    r = _report(lang, config, files)
    markdown = markdown.replace(MARKER, render(lang, config, files, r))
    # the numbers first: the box goes right under the title
    title = re.search(r"^# .*$", markdown, re.M)
    cpu = results.cpu_run()
    torch = results.cpu_runs(cpu, results.other_cpu_runs())[0][0]
    box = "\n\n" + summary_box(lang, r.statuses.values(), torch, results.gpu_run()) + "\n\n"
    return markdown[: title.end()] + box + markdown[title.end() :] if title else box + markdown


def on_page_content(html_: str, page, config, files) -> str:
    lang = page_language(page)
    report = report_file(lang, files)
    src = f"docs/{page.file.src_uri}"
    href = f"{report.url_relative_to(page.file)}#{row_id(src)}" if report is not None else ""
    line = badge(lang, src, href)
    if not line:
        return html_
    end = re.search(r"</h1>", html_)
    return html_[: end.end()] + line + html_[end.end() :] if end else line + html_
