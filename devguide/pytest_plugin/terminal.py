"""What a pytest run prints at its end: with --show-output, what each passing block
printed; the skipped tests, one line per reason.

pytest's ``-ra`` (the project's default) lists skips folded by file *and* line,
so the ~130 CUDA-only blocks, each at its own page line, gave ~130 lines of
``SKIPPED [1] docs/zh/…:42: needs a CUDA device …`` that pushed the failures
off the screen. The plugin prints them grouped by reason instead, with a count
and where the first ones are, and takes ``s`` out of pytest's own short summary;
``--no-fold-skipped`` keeps pytest's line per skipped test.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

SHOWN = 2  # locations named per reason; the rest are counted


def _location(report, start: Path) -> tuple[str, int | None, str]:
    """(path relative to ``start``, as pytest writes it; line; reason) of a skip report."""
    from _pytest.pathlib import bestrelpath

    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        path, line, reason = longrepr
        path = bestrelpath(start, Path(path))
    else:  # not a plain skip (should not happen): name the test
        path, line, reason = report.nodeid.split("::")[0], None, str(longrepr)
    return path, line, str(reason).removeprefix("Skipped: ")


def grouped_skips(reports, start: Path) -> list[str]:
    """One line per reason, most frequent first: ``[N] reason (where; and M more)``;
    a reason found at SHOWN places or fewer keeps pytest's line per place. Paths are
    relative to ``start`` (pytest's start path), as pytest writes them."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for report in reports:
        path, line, reason = _location(report, start)
        by_reason[reason].append(f"{path}:{line}" if line is not None else path)
    lines: list[str] = []
    for reason, places in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(places) <= SHOWN:  # as short as the folded line: pytest's own, one per place
            lines.extend(f"SKIPPED [1] {place}: {reason}" for place in places)
            continue
        pages = len({place.split(":")[0] for place in places})
        more = len(places) - SHOWN
        shown = ", ".join(places[:SHOWN]) + (f" and {more} more" if more > 0 else "")
        lines.append(f"SKIPPED [{len(places)}] {reason} (in {pages} file{'s' * (pages > 1)}: {shown})")
    return lines


def report_skips(terminalreporter) -> None:
    """Print the skips grouped by reason, and leave them out of pytest's own short
    summary (which follows). Nothing changes with --no-fold-skipped, or where the
    run did not ask for skips (-r without s)."""
    if "s" not in terminalreporter.reportchars or not terminalreporter.foldskipped:
        return
    terminalreporter.reportchars = terminalreporter.reportchars.replace("s", "")
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if getattr(r, "longrepr", None)]
    if not skipped:
        return
    terminalreporter.write_sep("=", "skipped, one line per reason (--no-fold-skipped lists each)", yellow=True)
    for line in grouped_skips(skipped, Path(terminalreporter.startpath)):
        terminalreporter.write_line(line, yellow=True)


def show_outputs(terminalreporter) -> None:
    """--show-output: each passing block's output under its page line, in page order,
    control characters escaped as in a failure (``zygote_client.printable``)."""
    from devguide.pytest_plugin.page_items import SHOWN_OUTPUT
    from devguide.pytest_plugin.state import TWIN
    from devguide.run.zygote_client import printable

    shown = []
    for report in terminalreporter.stats.get("passed", []):
        for name, text in report.sections:
            if name == f"Captured {SHOWN_OUTPUT} call":
                path, line, _ = report.location
                twins = [f"{page}:{at}" for key, (page, at) in
                         (p for p in report.user_properties if p[0] == TWIN)]
                shown.append((path, line + 1, text, twins))
    terminalreporter.write_sep("=", f"what the passing blocks printed (--show-output): {len(shown)}")
    for path, line, text, twins in sorted(shown):
        terminalreporter.write_line(f"--- {path}:{line}" + "".join(f" (and its identical twin {t})" for t in twins))
        terminalreporter.write_line(printable(text.rstrip("\n")))
