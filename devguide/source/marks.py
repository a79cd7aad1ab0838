"""The HTML comments right above a fence: marks, keywords and expected-output variants.

* ``MARKS`` -- the marks a block may carry (``<!--pytest.mark.cuda-->``, …) and
  what each means; ``DEVICE_MARKS``, those that name a device;
* ``eval_mark`` -- a ``pytest.mark.…`` comment read by a small literal grammar
  (``read_mark``): the mark's name, then literal arguments only (numbers,
  strings, ``True``/``False``/``None``, lists and tuples of these, keyword
  arguments); nothing in a comment is ever evaluated, and each mark's values are
  checked (a time limit is a finite number of seconds above 0);
* ``torch_specifier`` -- the torch versions an expected output is for
  (``<!--docs:expected-output torch==2.11.*-->``, ``VARIANT``);
* ``comment_problems`` -- a comment that looks like a mark or keyword but is none
  (a typo, a space, a missing prefix) would silently change nothing: it is
  refused, with the nearest form the harness honours.

The fences these comments stand above are read by ``devguide.source.fences``, the only parser.
"""

from __future__ import annotations

import ast
import difflib
import math
import re

import pytest

from devguide.paths import DocsError, Where

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


def comment_problems(comments: list[str], where: Where) -> list[str]:
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


def eval_mark(mark: str, where: Where):
    """The mark a ``pytest.mark.…`` comment names, read by ``read_mark`` (never
    evaluated), allowing only our marks with values they accept."""
    name, args, kwargs = read_mark(mark, where)
    value = getattr(pytest.mark, name)
    return value(*args, **kwargs) if args or kwargs else value


# What a mark's arguments may be: literals, and lists or tuples of them. Nothing else
# in a comment is a value (a call, a name, an attribute, an operator but a sign).
_LITERAL_NODES = (ast.Constant, ast.List, ast.Tuple, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)


def _literal(node: ast.AST, mark: str, where: Where):
    """The value of a literal argument; a DocsError for anything that is not one."""
    if all(isinstance(n, _LITERAL_NODES) for n in ast.walk(node)):
        try:
            return ast.literal_eval(node)
        except ValueError:  # e.g. a sign before a string
            pass
    raise DocsError.at(
        where, f"cannot read <!--{mark}-->: {ast.unparse(node)} is not a literal; a mark's "
        "arguments are numbers and strings written out (e.g. <!--pytest.mark.timeout(600)-->, "
        '<!--pytest.mark.skip(reason="why it is not run")-->), never code: nothing in a mark is run'
    )


def read_mark(mark: str, where: Where) -> tuple[str, tuple, dict]:
    """``pytest.mark.name`` or ``pytest.mark.name(literal, …, key=literal, …)`` →
    (name, args, kwargs), by ``ast.parse`` and a walk over the nodes a literal may
    have: the comment is never evaluated. Each mark's values are checked
    (``_check_values``). A DocsError at ``where`` names what to write otherwise."""
    text = mark.strip()
    name = mark_name(text)
    if name not in MARKS:
        allowed = ", ".join(f"pytest.mark.{m}" for m in MARKS)
        raise DocsError.at(where, f"unknown mark <!--{text}-->: use one of {allowed}")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise DocsError.at(
            where, f"cannot read <!--{text}-->: {exc.msg}; write one of: {', '.join(VALID_FORMS)}"
        ) from None
    call = node if isinstance(node, ast.Call) else None
    target = call.func if call else node
    if not (
        isinstance(target, ast.Attribute) and target.attr == name
        and isinstance(target.value, ast.Attribute) and target.value.attr == "mark"
        and isinstance(target.value.value, ast.Name) and target.value.value.id == "pytest"
    ):
        raise DocsError.at(
            where, f"cannot read <!--{text}-->: a mark is pytest.mark.<name> with literal "
            f"arguments in one pair of brackets; write one of: {', '.join(VALID_FORMS)}"
        )
    args, kwargs = (), {}
    if call:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise DocsError.at(where, f"cannot read <!--{text}-->: write each argument out (no * or **)")
        args = tuple(_literal(a, text, where) for a in call.args)
        kwargs = {k.arg: _literal(k.value, text, where) for k in call.keywords}
    _check_values(name, args, kwargs, text, where)
    return name, args, kwargs


def _check_values(name: str, args: tuple, kwargs: dict, text: str, where: Where) -> None:
    """Each mark takes what it means and nothing else: a reason for ``skip``, a finite
    number of seconds above 0 for ``timeout``, nothing for the others."""
    if name == "skip":
        if args or set(kwargs) - {"reason"} or not isinstance(kwargs.get("reason", ""), str):
            raise DocsError.at(
                where, f'<!--{text}-->: an excuse takes one argument, its reason as a string: '
                '<!--pytest.mark.skip(reason="why it is not run")-->'
            )
        if not kwargs.get("reason", "").strip():
            raise DocsError.at(
                where, 'an excused block needs a reason: <!--pytest.mark.skip(reason="…")-->'
            )
    elif name == "timeout":
        seconds = args[0] if len(args) == 1 and not kwargs else None
        if (
            not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
            or not math.isfinite(seconds) or seconds <= 0
        ):
            raise DocsError.at(
                where, f"<!--{text}-->: a time limit is one finite number of seconds above 0, "
                "e.g. <!--pytest.mark.timeout(600)--> (nan, inf, 0 and negative limits would "
                "switch the limit off or fail every run)"
            )
    elif args or kwargs:
        raise DocsError.at(where, f"<!--{text}-->: this mark takes no arguments: write <!--pytest.mark.{name}-->")


def torch_specifier(text: str, where: Where):
    """``torch==2.11.*`` → a SpecifierSet; a clear error otherwise."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = text.removeprefix("torch").strip()
    try:
        if not text.startswith("torch") or not spec:
            raise InvalidSpecifier(text)
        return SpecifierSet(spec)
    except InvalidSpecifier:
        raise DocsError.at(
            where, f"cannot read <!--docs:expected-output {text}-->: name the torch versions "
            "this output is for, e.g. <!--docs:expected-output torch==2.11.*-->"
        ) from None
