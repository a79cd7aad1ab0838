"""A Chinese page's code comments are Chinese: an English sentence left in a Chinese block fails.

The code of a Chinese block is its English twin's, character for character; only the
comments differ (``devguide.source.comments``), and ``parity --fix`` copies the English
block, comments included, into a Chinese page that lacks it. This test finds what such a
copy left behind: a comment of a Chinese page or notebook -- the block's own, and those of
the scripts its strings and here-documents hold -- that is an English phrase.

A comment counts as English when it has no Chinese character or full-width punctuation
and at least two English words once code is taken out: names with ``_``, ``.``, ``=``,
brackets or digits, acronyms (CUDA, GPU), mixed-case names (cuDNN, MiB), single letters
and the few plain words that name Python and torch things (``Python float``, ``bool``).
So ``(N, C, H, W)``, ``weights_only=True``, ``d out / d x_i = 3 * (x_i + 2)`` and
``float64`` pass, and ``the whole module object`` fails. Comments that are code and not
prose pass whatever they hold: a cell marker ``# %%``, a shebang, ``# noqa``,
``# type:``, ``# fmt:``, ``# pragma``, a linter's or encoding line, and the page's
annotation markers ``# (1)!``.
"""

import re

from devguide import paths
from tests.content.test_terminology import comment_lines, plant

# comments that are instructions to a tool, not words to a reader
CODE_COMMENT = re.compile(
    r"^(?:%%|!|\(\d+\)!|noqa\b|type:|fmt:|pragma\b|pylint:|mypy:|ruff:|isort:|nosec\b"
    r"|-\*-|(?:vim?|ex):|coding[:=])",
    re.I,
)
CHINESE_TEXT = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
# a word that is code: brackets, operators, digits, dots, underscores, quotes…
CODE_WORD = re.compile(r"\S*[_=()\[\]{}<>.*/+\\@:`'\"\d-]\S*")
# plain words that name Python and torch things, written as they are in Chinese prose
NAMES = {
    "python", "torch", "numpy", "pytorch", "float", "int", "bool", "str", "list", "dict", "tuple",
    "none", "true", "false", "nan", "inf", "import", "print", "tensor", "dtype", "device", "cuda",
    "cpu", "gpu", "mps", "xpu", "to", "float32", "float16", "bfloat16", "int64", "log", "exp",
    "sum", "mean", "max", "min", "forward", "backward", "step", "cudnn", "nccl", "gloo",
}


def english_words(comment: str) -> list[str]:
    """The English words of a comment once code, acronyms and names are taken out."""
    text = CODE_WORD.sub(" ", comment)
    return [
        w for w in re.findall(r"[A-Za-z]+", text)
        if len(w) > 1 and not w.isupper() and not re.search(r"[a-z][A-Z]", w) and w.lower() not in NAMES
    ]


def is_english(comment: str) -> bool:
    if not comment or CODE_COMMENT.match(comment) or CHINESE_TEXT.search(comment):
        return False
    return len(english_words(comment)) >= 2


def english_comments(docs) -> list[str]:
    """page:line: what to do, for each English comment in the code of a Chinese page."""
    return [
        f"{where}: the comment “# {comment}” is English in a Chinese page: write it in Chinese "
        f"(the code stays as in the English twin; only comments differ, see CONTRIBUTING.zh.md)"
        for where, comment in comment_lines(docs)
        if is_english(comment)
    ]


def test_chinese_pages_comment_their_code_in_chinese():
    found = english_comments(paths.DOCS)
    assert not found, "English comments in Chinese code blocks:\n" + "\n".join(found)


def test_a_planted_english_comment_is_caught(tmp_path):
    page = plant(tmp_path, (
        "# 标题\n\n"
        "```python\n"
        "#!/usr/bin/env python\n"
        "# %%\n"
        "import os  # noqa: F401\n"
        "x = 1  # type: int\n"
        "y = (1, 2)  # (N, C) -> (C, N)\n"
        "z = 2  # weights_only=True\n"
        "w = 3  # Python float\n"
        "v = 4  # (1)!\n"
        "u = 5  # 整个模块对象\n"
        "t = 6  # the whole module object\n"
        "child = '''\n"
        "import torch  # too late for this process\n"
        "'''\n"
        "```\n\n"
        "```bash\n"
        "cat > a.py <<'PY'\n"
        "x = 1  # every process sends its rank\n"
        "PY\n"
        "ls  # lists the files\n"
        "```\n"
    ))
    rel = paths.rel(page)
    found = english_comments(tmp_path / "docs")
    assert [f.split(": the comment")[0] for f in found] == [f"{rel}:13", f"{rel}:15", f"{rel}:21", f"{rel}:23"]
    assert found[0] == (
        f"{rel}:13: the comment “# the whole module object” is English in a Chinese page: write it in "
        "Chinese (the code stays as in the English twin; only comments differ, see CONTRIBUTING.zh.md)"
    )
