"""What a pytest run prints at its end: the skipped tests, one line per reason.

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

from devguide import config

SHOWN = 2  # locations named per reason; the rest are counted


def _location(report) -> tuple[str, int | None, str]:
    """(path relative to the repository, line, reason) of a skip report."""
    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        path, line, reason = longrepr
    else:  # not a plain skip (should not happen): name the test
        path, line, reason = report.nodeid.split("::")[0], None, str(longrepr)
    return config.rel(Path(path)), line, str(reason).removeprefix("Skipped: ")


def grouped_skips(reports) -> list[str]:
    """One line per reason, most frequent first: ``[N] reason (where; and M more)``."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for report in reports:
        path, line, reason = _location(report)
        by_reason[reason].append(f"{path}:{line}" if line is not None else path)
    lines = []
    for reason, places in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(places) == 1:
            lines.append(f"SKIPPED [1] {places[0]}: {reason}")
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
    for line in grouped_skips(skipped):
        terminalreporter.write_line(line, yellow=True)
