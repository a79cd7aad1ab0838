"""Which torch releases printed each wording on the error pages (issue 35, item 3).

The error reference titles each entry with the message as the pinned torch prints it and
lists older wordings as variants ("Other forms of this message"). This tool checks those
wordings against torch itself: for every release from 1.13 to the newest it downloads the
wheel PyPI serves for macOS on Apple silicon (a CPU build with MPS, 50-130 MB, the
smallest wheel torch publishes), reads the message strings of its Python sources and of
its C++ libraries, and decides for each wording on the English pages (entry titles and
variant headings) which releases contain it.

A wording "is in" a release when the literal pieces of that release's strings cover it:
torch builds most messages from pieces (``c10::str("Expected all tensors to be on the same
device, but found at least two devices, ", a, " and ", b, "!")``, an f-string), so the
wording a user pastes is the pieces with values between them. The values a page's heading
carries (shapes, names, devices, numbers) are what the pieces leave uncovered; a wording is
in a release when the pieces cover at least ``COVERED`` of its letters and one piece is at
least ``LONGEST`` characters long. Measured on the pages of 2026-12-06: 77 of the 102 entry
titles are found in 2.13.0 (the others are CUDA, NCCL or Python messages), and of eleven
wordings known to be gone since torch 1.x (THCUNN paths, ``Variable``, ``_th_`` kernels) two
are still found in 1.13.1, whose strings hold the same pieces.

For each entry whose wordings are missing from some releases, the tool also looks in those
releases for the string that most resembles the entry's current wording: a candidate older
wording. ``tests/content/test_wording_history.py`` keeps the pages in step with the
result: every wording on a page has its releases recorded, and every candidate is either
on the page as a variant or dismissed, with a reason, in ``wording_history_reviewed.toml``.

What it cannot see: messages of the CUDA libraries (``libtorch_cuda``: CUDA-only entries
are recorded as found in no release, and the pages keep their source links), and NCCL's
own wordings (NCCL is not in any wheel's strings). Those entries say where their wording
comes from in their own text.

    python -m devguide wording-history            # refresh the record (downloads once, cached)
    python -m devguide wording-history --offline  # only releases already in the cache

The wheels' strings are cached in ``build/wording-history/`` (about 40 MB per release);
the record is ``devguide/mkdocs_plugin/hooks/wording_history.json``, which the error-page
hook renders under each wording ("Printed by torch 2.0–2.4").
"""

from __future__ import annotations

import difflib
import gzip
import html
import io
import itertools
import json
import re
import sys
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from devguide import paths

# The newest patch release of each minor release, 1.13 to the newest on PyPI (2026-12-06).
RELEASES = [
    "1.13.1",
    "2.0.1",
    "2.1.2",
    "2.2.2",
    "2.3.1",
    "2.4.1",
    "2.5.1",
    "2.6.0",
    "2.7.1",
    "2.8.0",
    "2.9.1",
    "2.10.0",
    "2.11.0",
    "2.12.1",
    "2.13.0",
    "2.14.1",
    "2.15.0",
]
CACHE = paths.REPO / "build" / "wording-history"
RECORD = paths.REPO / "devguide" / "mkdocs_plugin" / "hooks" / "wording_history.json"
PAGES = paths.REPO / "docs" / "en" / "reference" / "errors"
PYPI = "https://pypi.org/pypi/torch/json"

COVERED = 0.8  # share of a wording's letters the release's pieces must cover
LONGEST = 16  # the longest covering piece at least this long
PIECE = 4  # shortest piece kept; pieces are indexed by their first PIECE characters
COVERING = (
    8  # shortest piece that covers inside a wording (shorter ones are too common)
)
VALUE = 40  # longest uncovered run without a space that counts as a value

# the exception class a heading starts with, which no message string holds
PREFIX = re.compile(
    r"^(?:[\w.]+(?:Error|Exception|Warning|Interrupt)|Warning|Error)(?:\s*\([^)]*\))?:\s*"
)
# a quoted literal in a Python line, and the placeholders inside one
PY_STRING = re.compile(
    r"""(?:[rbfuRBFU]{0,2})("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
)
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[sdrfixg]|\\n")
PRINTABLE = re.compile(rb"[\x20-\x7e]{%d,}" % PIECE)


def _wheel_url(version: str) -> str:
    with urllib.request.urlopen(PYPI, timeout=60) as r:
        files = json.load(r)["releases"].get(version, [])
    wheels = [
        f
        for f in files
        if f["filename"].endswith(".whl")
        and "macosx" in f["filename"]
        and "arm64" in f["filename"]
    ]
    if not wheels:
        raise SystemExit(
            f"wording-history: PyPI serves no macOS arm64 wheel of torch {version}"
        )
    # the registry may answer with addresses relative to the JSON's own
    return urllib.parse.urljoin(PYPI, min(wheels, key=lambda f: f["size"])["url"])


def _strings_of(blob: bytes, name: str) -> set[str]:
    out: set[str] = set()
    if name.endswith(".py"):
        for line in blob.decode("utf-8", "replace").splitlines():
            for m in PY_STRING.finditer(line):
                for piece in PLACEHOLDER.split(m.group(1)[1:-1]):
                    if len(piece) >= PIECE:
                        out.add(piece.replace("\\'", "'").replace('\\"', '"'))
    else:
        for run in PRINTABLE.finditer(blob):
            for piece in PLACEHOLDER.split(run.group().decode("ascii")):
                if len(piece) >= PIECE:
                    out.add(piece)
    return out


def strings(version: str, offline: bool = False) -> set[str] | None:
    """The message pieces of one release (cached gzip text, one piece per line)."""
    cached = CACHE / f"torch-{version}.txt.gz"
    if cached.exists():
        return set(gzip.decompress(cached.read_bytes()).decode().split("\n"))
    if offline:
        return None
    url = _wheel_url(version)
    print(
        f"wording-history: downloading torch {version} ({url.rsplit('/', 1)[-1]})",
        file=sys.stderr,
    )
    with urllib.request.urlopen(url, timeout=600) as r:
        wheel = zipfile.ZipFile(io.BytesIO(r.read()))
    found: set[str] = set()
    for info in wheel.infolist():
        name = info.filename
        if name.endswith(".py") or name.endswith(".dylib") or name.endswith(".so"):
            found |= _strings_of(wheel.read(info), name)
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(gzip.compress("\n".join(sorted(found)).encode()))
    return found


@dataclass
class Release:
    version: str
    pieces: dict[str, list[str]]  # first KEY characters -> pieces
    all: set[str]

    @classmethod
    def of(cls, version: str, found: set[str]) -> Release:
        index: dict[str, list[str]] = {}
        for p in found:
            p = p.replace("`", "")
            if len(p) >= PIECE:
                index.setdefault(p[:PIECE], []).append(p)
        return cls(version, index, found)

    def coverage(self, wording: str) -> tuple[float, int]:
        """The share of the wording's letters covered by this release's pieces, and the
        longest covering piece. A piece of at least ``COVERING`` characters covers where
        it occurs whole in the wording, and any piece covers where the wording ends
        inside it (a heading that stops before the message does). What no piece covers,
        holds no space and is at most ``VALUE`` characters long is a value (a name, a
        shape, a device) and is left out of the share."""
        covered = [False] * len(wording)
        longest = 0
        for i in range(len(wording) - PIECE + 1):
            rest = wording[i:]
            for p in self.pieces.get(wording[i : i + PIECE], ()):
                if (len(p) >= COVERING and rest.startswith(p)) or p.startswith(rest):
                    n = min(len(p), len(rest))
                    longest = max(longest, n)
                    for k in range(i, i + n):
                        covered[k] = True
        counted = hit = 0
        for gap, run in itertools.groupby(
            zip(covered, wording, strict=True), key=lambda c: c[0]
        ):
            text = "".join(ch for _, ch in run)
            letters = sum(ch.isalpha() for ch in text)
            if gap:
                hit += letters
                counted += letters
            elif " " in text.strip() or len(text.strip()) > VALUE:
                counted += letters
        return (hit / counted if counted else 0.0), longest

    def prints(self, wording: str) -> bool:
        share, longest = self.coverage(wording)
        return share >= COVERED and longest >= min(LONGEST, len(wording))

    def closest(self, wording: str) -> str | None:
        """The piece of this release most like the wording (a candidate older form)."""
        words = [w for w in re.findall(r"[A-Za-z_]{5,}", wording)]
        if not words:
            return None
        rare = sorted(set(words), key=len, reverse=True)[:3]
        pool = [
            p
            for p in self.all
            if len(p) >= LONGEST and sum(w in p for w in rare) >= min(2, len(rare))
        ]
        best = difflib.get_close_matches(wording, pool, n=1, cutoff=0.6)
        return best[0] if best else None


@dataclass
class Wording:
    page: str
    entry: str  # the entry's anchor
    anchor: str  # this heading's anchor
    text: str  # the heading without the exception class
    title: bool  # the entry's title (the pinned torch's wording) or a variant


HEADING = re.compile(r"^(##|####) (.+?) \{ #([\w-]+) \}\s*$")


def wordings(pages: Path = PAGES) -> list[Wording]:
    """The entry titles and variant headings of the English error pages."""
    out: list[Wording] = []
    for page in sorted(pages.glob("*.md")):
        if page.name == "index.md":
            continue
        entry = None
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            m = HEADING.match(line)
            if not m:
                if line.startswith("## ") or line.startswith("### "):
                    entry = None
                continue
            level, text, anchor = m.groups()
            text = (
                html.unescape(re.sub(r"\\([\\`*_{}\[\]()#+.!<>-])", r"\1", text))
                .replace("`", "")
                .strip()
            )
            text = PREFIX.sub("", text)
            if level == "##":
                entry = anchor
            if entry is not None:
                out.append(Wording(page.stem, entry, anchor, text, level == "##"))
    return out


def spans(found: list[str]) -> list[str]:
    """Releases as runs: ["1.13.1–2.4.1", "2.13.0"]."""
    runs: list[list[str]] = []
    for v in RELEASES:
        if v in found:
            if runs and RELEASES.index(runs[-1][-1]) == RELEASES.index(v) - 1:
                runs[-1].append(v)
            else:
                runs.append([v])
    return [r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs]


def build(offline: bool = False) -> dict:
    releases = []
    for v in RELEASES:
        found = strings(v, offline=offline)
        if found is not None:
            releases.append(Release.of(v, found))
    if not releases:
        raise SystemExit(
            f"wording-history: no release cached in {CACHE} (run it once without --offline)"
        )
    record: dict = {
        "releases": [r.version for r in releases],
        "wordings": {},
        "candidates": {},
    }
    by_entry: dict[str, list[Wording]] = {}
    for w in wordings():
        printed_by = [r.version for r in releases if r.prints(w.text)]
        record["wordings"][w.anchor] = {
            "page": w.page,
            "entry": w.entry,
            "text": w.text,
            "title": w.title,
            "releases": printed_by,
        }
        by_entry.setdefault(w.entry, []).append(w)
    for entry, ws in by_entry.items():
        title = ws[0]
        if not record["wordings"][title.anchor]["releases"]:
            continue  # not in any wheel's strings (CUDA-only or composed at run time)
        covered = {v for w in ws for v in record["wordings"][w.anchor]["releases"]}
        for r in releases:
            if r.version in covered:
                continue
            near = r.closest(title.text)
            if near and not any(near in w.text or w.text in near for w in ws):
                record["candidates"].setdefault(entry, {}).setdefault(near, []).append(
                    r.version
                )
    return record


def main(argv: list[str] | None = None) -> int:
    offline = "--offline" in (argv if argv is not None else sys.argv[1:])
    record = build(offline=offline)
    RECORD.write_text(
        json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    found = sum(1 for w in record["wordings"].values() if w["releases"])
    print(
        f"wording-history: {len(record['wordings'])} wordings on the English error pages, {found} found in the "
        f"strings of {len(record['releases'])} releases; {sum(len(c) for c in record['candidates'].values())} "
        f"candidate older wordings in {len(record['candidates'])} entries -> {RECORD.relative_to(paths.REPO)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
