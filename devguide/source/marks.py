"""The HTML comments right above a fence: marks, keywords and expected-output variants.

* ``MARKS`` -- the marks a block may carry (``<!--pytest.mark.cuda-->``, …) and
  what each means; ``DEVICE_MARKS``, those that name a device;
* ``eval_mark`` -- a ``pytest.mark.…`` comment evaluated as pytest-codeblocks
  evaluates it, our marks only;
* ``torch_specifier`` -- the torch versions an expected output is for
  (``<!--docs:expected-output torch==2.11.*-->``, ``VARIANT``);
* ``comment_problems`` -- a comment that looks like a mark or keyword but is none
  (a typo, a space, a missing prefix) would silently change nothing: it is
  refused, with the nearest form the harness honours.

The fences these comments stand above are read by ``devguide.source.fences``, the only parser.
"""

from __future__ import annotations

import difflib
import re

import pytest

from devguide.paths import DocsError

# Marks allowed in an HTML comment right before a fence.
MARKS = {
    "cuda": "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)",
    "mps": "needs an Apple-silicon MPS device: no CI machine runs it",
    "xpu": "needs an Intel GPU (XPU device): no CI machine runs it",
    "skip": "excused: never run; the reason is shown in the validation report",
    "timeout": "a time limit in seconds other than the default (devguide/run/sandbox.py DEFAULT_TIMEOUT)",
    "pinned": "shows the pinned torch version (pyproject.toml): checked in the pinned run "
    "(make test); a run with another torch (make test-cuda) skips it",
}
# Marks for blocks that need one kind of device. Where it is missing, such a block is
# compiled, its torch names are checked (devguide.pytest_plugin.apicheck), and it is skipped with
# the mark's reason; the census counts each kind apart (its "kind" is the mark).
DEVICE_MARKS = ("cuda", "mps", "xpu")
# An expected output for other torch versions, below the block's usual one:
#   <!--docs:expected-output torch==2.11.*-->
VARIANT = re.compile(r"^\s*docs:expected-output\b(?P<rest>.*)$")


# HTML comments right above a fence that are not marks but look like one (a typo,
# a space, a missing prefix) would silently change nothing: they are refused.
LOOKS_LIKE_A_MARK = re.compile(r"(?i)pytest|codeblocks|mark|skip|cuda|\bmps|\bxpu|expect|output|\bcont\b|timeout|pinned|^\s*docs\s*:")
PLAIN_COMMENTS = {"gpu-output", "validation-report"}  # markers the site's hooks replace
VALID_FORMS = (
    "<!--pytest.mark.cuda-->",
    "<!--pytest.mark.mps-->",
    "<!--pytest.mark.xpu-->",
    '<!--pytest.mark.skip(reason="why it is not run")-->',
    "<!--pytest.mark.timeout(600)-->",
    "<!--pytest.mark.pinned-->",
    "<!--pytest-codeblocks:expected-output-->",
    "<!--pytest-codeblocks:expected-output-ignore-whitespace-->",
    "<!--pytest-codeblocks:cont-->",
    "<!--docs:expected-output torch==2.11.*-->",
)


def comment_problems(comments: list[str], where: str) -> list[str]:
    """What is wrong with the comments right above a fence (``comments``, their
    bodies; ``where``, the fence's page line): empty when nothing is."""
    problems = []
    for body in comments:
        text = body.strip()
        if text in PLAIN_COMMENTS or not LOOKS_LIKE_A_MARK.search(text):
            continue
        if re.fullmatch(r"pytest\.mark\.\w+(\(.*\))?", text, re.S):
            try:
                eval_mark(text, where)
            except DocsError as exc:
                problems.append(str(exc))
            continue
        m = re.fullmatch(r"[-\s]*pytest-codeblocks:(.*)", text)
        if m:
            keyword = m.group(1).strip("- ")
            if keyword in ("expected-output", "expected-output-ignore-whitespace", "cont"):
                continue
            hint = {
                "skip": 'an excused block needs a reason: <!--pytest.mark.skip(reason="…")-->',
                "skipfile": 'excuse blocks one by one with <!--pytest.mark.skip(reason="…")-->',
            }.get(keyword.split("(")[0], "")
            problems.append(
                f"{where}: <!--{text}--> is not a keyword the harness honours"
                + (f": {hint}" if hint else "")
                + f"; write one of: {', '.join(VALID_FORMS)}"
            )
            continue
        if VARIANT.match(text):
            continue
        squeezed = re.sub(r"\s+", "", text).replace("pytest-mark", "pytest.mark").replace("_", "-")
        guess = difflib.get_close_matches(f"<!--{squeezed}-->", VALID_FORMS, n=1, cutoff=0.5)
        problems.append(
            f"{where}: the comment <!--{body}--> above this fence looks like a mark or keyword "
            f"but is none, so it would change nothing"
            + (f": did you mean {guess[0]}?" if guess else "")
            + f" The harness honours: {', '.join(VALID_FORMS)}"
        )
    return problems


def mark_name(mark: str) -> str:
    return mark.removeprefix("pytest.mark.").split("(", 1)[0]


def eval_mark(mark: str, where: str):
    """Evaluate ``pytest.mark.…`` from a comment, allowing only our marks."""
    name = mark_name(mark)
    if name not in MARKS:
        allowed = ", ".join(f"pytest.mark.{m}" for m in MARKS)
        raise DocsError(f"{where}: unknown mark <!--{mark}-->: use one of {allowed}")
    try:
        value = eval(mark, {"pytest": pytest})  # same evaluation as pytest-codeblocks
    except Exception as exc:  # noqa: BLE001 - reported with the page line
        raise DocsError(f"{where}: cannot read <!--{mark}-->: {exc}") from None
    if name == "skip" and not str(value.kwargs.get("reason") or "").strip():
        raise DocsError(
            f'{where}: an excused block needs a reason: <!--pytest.mark.skip(reason="…")-->'
        )
    return value


def torch_specifier(text: str, where: str):
    """``torch==2.11.*`` → a SpecifierSet; a clear error otherwise."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = text.removeprefix("torch").strip()
    try:
        if not text.startswith("torch") or not spec:
            raise InvalidSpecifier(text)
        return SpecifierSet(spec)
    except InvalidSpecifier:
        raise DocsError(
            f"{where}: cannot read <!--docs:expected-output {text}-->: name the torch versions "
            "this output is for, e.g. <!--docs:expected-output torch==2.11.*-->"
        ) from None
