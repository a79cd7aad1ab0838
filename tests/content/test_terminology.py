"""One word per concept: the Chinese pages write the glossary's terms, not their synonyms.

The Chinese glossary is the source of terminology. A term with synonyms the site does
not use lists them in its cell, on a line of their own, separated by 、::

    | 内核<br>不用：核函数 | kernel | — | [异步执行与同步点](../async/sync-points.md) |

Every Chinese page and notebook is then searched for those synonyms in its prose and
in the comments of its code (a Chinese page's code comments in Chinese): the code
itself, other fenced blocks, inline code, link targets and HTML comments are left out
(code and error messages quote English and API names as they are). A synonym found is reported
with the page line and the term to write instead. An English synonym (回溯 rejects
traceback) counts only where it runs into Chinese text, not as the English column's
cell or inside a gloss such as 回溯（traceback）. A term that rejects synonyms must itself
be written somewhere outside the glossary: a preferred word no page uses is not the
site's word.

The same prose lines are checked for two typographic rules: emphasis in Chinese is
bold (**…**), never italic (*…* or _…_: Chinese fonts have no true italic), and
Chinese quotation marks sit directly against the Chinese text around them, whatever
they hold: 报错里“reserved by PyTorch”的数字, not 报错里 “reserved by PyTorch” 的数字.
And a dimension is named as PyTorch counts it: `dim=1`, never 第 1 维, which a Chinese reader
takes for the first (第 0 维 is not ambiguous and stays).
"""

import re
from dataclasses import dataclass
from pathlib import Path

from devguide import paths
from devguide.source import fences
from devguide.source.comments import comment_texts

CHINESE = "zh"
GLOSSARY = Path(CHINESE) / "reference" / "glossary.md"
# the first cell of a table row: the term, then "<br>不用：" and the synonyms
REJECTED = re.compile(r"^\|\s*(?P<term>[^|]+?)\s*<br>\s*不用：(?P<synonyms>[^|]+?)\s*\|")
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
# an ASCII double quote next to a Chinese character, or one space away from it (信息里是 "BFloat16"):
# Chinese prose quotes with “ ”
ASCII_QUOTE = re.compile(r'[\u3400-\u9fff\u3000-\u303f\uff00-\uffef] ?"|" ?[\u3400-\u9fff]')
# Markdown syntax whose title must be in ASCII quotes: !!! note "…", ??? tip "…", === "…"
QUOTED_TITLE = re.compile(r'^\s*(?:[!?]{3}\+?\s+[\w-]+(?:\s+[\w-]+)*|===\+?)\s+"')
# Chinese characters and full-width punctuation, but not the full-width brackets of a gloss
CJK_TEXT = r"[\u3400-\u9fff\u3000-\u3007\u3010-\u303f\uff01-\uff07\uff0a-\uffef]"
# a Chinese quotation mark with a space between it and the Chinese text outside it
# (one space: a longer run is a blanked code span, and a space after code is right)
SPACED_QUOTE = re.compile(
    r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef] “|” [\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"
)
# *…* or _…_ around text with Chinese in it (** bold ** and snake_case names left alone)
ITALIC = re.compile(
    r"(?<![*\\])\*(?![*\s])(?P<star>[^*\n]*?[\u3400-\u9fff][^*\n]*?)(?<![*\s\\])\*(?!\*)"
    r"|(?<![A-Za-z0-9_\\])_(?![_\s])(?P<under>[^_\n]*?[\u3400-\u9fff][^_\n]*?)(?<![_\s])_(?![A-Za-z0-9_])"
)


# 复制 stays for code, commands, text and files (复制命令, 复制来的代码); a copy of data is 拷贝
# (the glossary's 拷贝 row). These phrases only ever mean copying data: 复制到 GPU, 复制回 CPU,
# 复制进模型, 复制数据, 非阻塞复制 ...
DATA_COPY = re.compile(r"(?:异步|非阻塞|同步)复制|复制(?:到|回|进|数据|张量|模型|参数|数组|一份)")


@dataclass(frozen=True)
class Synonym:
    word: str  # what the pages must not write
    term: str  # what they write instead
    where: str  # the glossary row that says so


def rejected_synonyms(docs: Path) -> dict[str, Synonym]:
    """The synonyms the Chinese glossary rejects, each with its preferred term."""
    glossary = docs / GLOSSARY
    found: dict[str, Synonym] = {}
    for number, line in enumerate(glossary.read_text(encoding="utf-8").splitlines(), 1):
        m = REJECTED.match(line)
        if not m:
            continue
        term = re.sub(r"（.*?）", "", m.group("term")).strip()
        where = f"{paths.rel(glossary)}:{number}"
        for word in (w.strip() for w in m.group("synonyms").split("、")):
            assert word, f"{where}: an empty synonym after 不用："
            assert word not in found, f"{where}: {word} is already rejected at {found[word].where}"
            found[word] = Synonym(word, term, where)
    return found


def _blank(match: re.Match) -> str:
    """The matched text with everything but line breaks replaced by spaces."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text: str) -> str:
    """Markdown text without code spans, HTML comments and link targets (lines kept)."""
    for pattern in (HTML_COMMENT, CODE_SPAN, LINK_TARGET):
        text = pattern.sub(_blank, text)
    return re.sub(r"<br>\s*不用：[^|\n]*", "", text)  # the glossary's own lists


def page_prose(page: Path) -> list[str]:
    """The page's lines, fenced blocks blanked, then the rest reduced to prose."""
    lines = page.read_text(encoding="utf-8").splitlines()
    for fence in fences.scan_fences(page):
        for number in range(fence.line, fence.end + 1):
            lines[number - 1] = ""
    return prose("\n".join(lines)).split("\n")


def notebook_prose(notebook: Path) -> list[str]:
    """A jupytext percent notebook's lines: the Markdown cells' text, code cells blanked."""
    lines, markdown = [], False
    for line in notebook.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            markdown = "[markdown]" in line
            lines.append("")
        elif markdown and line.startswith("#"):
            lines.append(line[2:])
        else:
            lines.append("")
    return prose("\n".join(lines)).split("\n")


def chinese_sources(docs: Path) -> list[Path]:
    root = docs / CHINESE
    return [p for p in [*fences.pages(docs), *fences.notebooks(docs)] if p.is_relative_to(root)]


def prose_lines(docs: Path):
    """("page:line", text) for each line of Chinese prose (code left out)."""
    for source in chinese_sources(docs):
        lines = notebook_prose(source) if source.suffix == ".py" else page_prose(source)
        for number, line in enumerate(lines, 1):
            yield f"{paths.rel(source)}:{number}", line


def notebook_code_cells(notebook: Path) -> list[tuple[int, str]]:
    """(line of the cell's first code line, code) of each code cell of a percent notebook."""
    cells, current, start = [], None, 0
    for number, line in enumerate(notebook.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("# %%"):
            if current is not None:
                cells.append((start, "\n".join(current) + "\n"))
            current, start = (None, 0) if "[markdown]" in line else ([], number + 1)
        elif current is not None:
            current.append(line)
    if current is not None:
        cells.append((start, "\n".join(current) + "\n"))
    return cells


def comment_lines(docs: Path):
    """("page:line", text) for each comment in the code of the Chinese pages and notebooks:
    the Chinese twin comments in Chinese, so its comments hold the glossary's terms too."""
    for source in chinese_sources(docs):
        if source.suffix == ".py":
            blocks = [(first, code, "python") for first, code in notebook_code_cells(source)]
        else:
            blocks = [
                (f.line + 1, f.code, f.language) for f in fences.scan_fences(source) if f.language in fences.EXECUTED
            ]
        for first, code, language in blocks:
            for line, comment in comment_texts(code, language):
                yield f"{paths.rel(source)}:{first + line - 1}", comment


def chinese_text(docs: Path):
    """Prose lines, then code comments: the Chinese text that uses the glossary's words."""
    yield from prose_lines(docs)
    yield from comment_lines(docs)


def synonym_pattern(word: str) -> re.Pattern:
    """Where a rejected synonym counts: anywhere if Chinese; an English one next to Chinese text."""
    if not word.isascii():
        return re.compile(re.escape(word))
    w = re.escape(word)
    return re.compile(
        rf"(?:(?<={CJK_TEXT})|(?<={CJK_TEXT} )){w}(?![A-Za-z])"
        rf"|(?<![A-Za-z]){w}(?= ?{CJK_TEXT})"
    )


def problems(docs: Path) -> list[str]:
    """page:line: what to write instead, for each rejected synonym in Chinese prose and code comments."""
    synonyms = rejected_synonyms(docs)
    patterns = {word: synonym_pattern(word) for word in synonyms}
    return [
        f"{where}: write {synonym.term} instead of {word} (one word per concept: {synonym.where})"
        for where, line in chinese_text(docs)
        for word, synonym in synonyms.items()
        if patterns[word].search(line)
    ]


def unused_terms(docs: Path) -> list[str]:
    """glossary:line for each term that rejects synonyms but appears on no other Chinese page."""
    glossary = paths.rel(docs / GLOSSARY)
    written = "\n".join(
        line for where, line in prose_lines(docs) if not where.startswith(f"{glossary}:")
    )
    # a term that is an API name (`collate_fn`) is written in code spans, which prose leaves out
    code = "\n".join(
        p.read_text(encoding="utf-8") for p in chinese_sources(docs) if p != docs / GLOSSARY
    )
    preferred = {s.term: s.where for s in rejected_synonyms(docs).values()}
    return [
        f"{where}: no Chinese page writes {term}; make the glossary say what the pages write"
        for term, where in preferred.items()
        if (term not in code if term.startswith("`") else term not in written)
    ]


# 第 1 维 reads as the first dimension; PyTorch counts from 0, so `dim=1` is the second
ZERO_BASED = re.compile(r"第\s*(?P<n>[1-9]\d*)\s*维")


def zero_based_dimensions(docs: Path) -> list[str]:
    """page:line for each 第 N 维 (N ≥ 1) in Chinese prose or code comments: a Chinese reader counts
    from 1, PyTorch from 0, so the dimension is ambiguous (第 0 维 is not)."""
    return [
        f"{where}: write `dim={m['n']}` instead of {m[0]} (PyTorch counts dimensions from 0, "
        f"a Chinese reader from 1: CONTRIBUTING.zh.md)"
        for where, line in chinese_text(docs)
        for m in ZERO_BASED.finditer(line)
    ]


def italic_emphasis(docs: Path) -> list[str]:
    """page:line for each *…* or _…_ around Chinese text (Chinese emphasis is bold)."""
    return [
        f"{where}: write **{m['star'] or m['under']}** instead of {m[0]} "
        "(Chinese has no italic: emphasis is bold)"
        for where, line in prose_lines(docs)
        for m in ITALIC.finditer(line)
    ]


def spaced_quotes(docs: Path) -> list[str]:
    """page:line for each space between a Chinese quotation mark and the Chinese text outside it."""
    return [
        f"{where}: write {m[0].replace(' ', '')} instead of {m[0]} "
        "(no space between “ ” and the Chinese text around them)"
        for where, line in prose_lines(docs)
        for m in SPACED_QUOTE.finditer(line)
    ]


def ascii_quotes(docs: Path) -> list[str]:
    """page:line for each ASCII double quote that Chinese prose uses as a quotation mark."""
    return [
        f"{where}: write “…” instead of \"…\" in Chinese prose"
        for where, line in prose_lines(docs)
        if not QUOTED_TITLE.match(line) and ASCII_QUOTE.search(line)
    ]


def data_copies(docs: Path) -> list[str]:
    """page:line for each 复制 in Chinese prose or code comments that means a copy of data (write 拷贝)."""
    return [
        f"{where}: write {m[0].replace('复制', '拷贝')} instead of {m[0]} "
        f"(拷贝 for copies of data, 复制 for code and text: {GLOSSARY})"
        for where, line in chinese_text(docs)
        for m in DATA_COPY.finditer(line)
    ]


def plant(tmp_path, text: str):
    """A Chinese page holding ``text`` in a scratch docs/ folder (the planted tests)."""
    page = tmp_path / "docs" / CHINESE / "planted.md"
    page.parent.mkdir(parents=True)
    page.write_text(text, encoding="utf-8")
    return page


def test_chinese_prose_quotes_with_chinese_marks():
    found = ascii_quotes(paths.DOCS)
    assert not found, "ASCII quotes in Chinese prose:\n" + "\n".join(found)


def test_a_planted_ascii_quote_is_caught(tmp_path):
    page = plant(tmp_path, (
        '# 标题\n\n!!! warning "不要用 `.data`"\n\n=== "只用 CPU"\n\n'
        '这叫"未知词"。\n\n`"引号"` 在代码里可以。\n\n（信息里是 "BFloat16"）\n'
    ))
    assert ascii_quotes(tmp_path / "docs") == [
        f"{paths.rel(page)}:7: write “…” instead of \"…\" in Chinese prose",
        f"{paths.rel(page)}:11: write “…” instead of \"…\" in Chinese prose",
    ]


def test_chinese_emphasis_is_bold():
    found = italic_emphasis(paths.DOCS)
    assert not found, "italic emphasis in Chinese prose:\n" + "\n".join(found)


def test_a_planted_italic_is_caught(tmp_path):
    page = plant(tmp_path, (
        "# 标题\n\n时间花在**哪里**，见 *Effective Python* 和 `*args`。\n\n"
        "时间花在*哪里*，只管_全局_生成器，snake_case_名字不算。\n\n"
        "```python\nx = 1  # *斜体*\n```\n"
    ))
    where = f"{paths.rel(page)}:5"
    assert italic_emphasis(tmp_path / "docs") == [
        f"{where}: write **哪里** instead of *哪里* (Chinese has no italic: emphasis is bold)",
        f"{where}: write **全局** instead of _全局_ (Chinese has no italic: emphasis is bold)",
    ]


def test_chinese_quotes_sit_against_chinese_text():
    found = spaced_quotes(paths.DOCS)
    assert not found, "spaces around “ ” in Chinese prose:\n" + "\n".join(found)


def test_a_planted_spaced_quote_is_caught(tmp_path):
    page = plant(tmp_path, (
        "# 标题\n\n报错里“reserved by PyTorch”的数字；`nvidia-smi` 的“CUDA Version”列。\n\n"
        "报错里 “reserved by PyTorch” 的数字。\n"
    ))
    where = f"{paths.rel(page)}:5"
    suffix = "(no space between “ ” and the Chinese text around them)"
    assert spaced_quotes(tmp_path / "docs") == [
        f"{where}: write 里“ instead of 里 “ {suffix}",
        f"{where}: write ”的 instead of ” 的 {suffix}",
    ]


def test_chinese_prose_writes_kaobei_for_data_copies():
    found = data_copies(paths.DOCS)
    assert not found, "复制 for a copy of data in Chinese prose:\n" + "\n".join(found)


def test_a_planted_data_copy_is_caught(tmp_path):
    page = plant(tmp_path, (
        "# 标题\n\n复制命令，或者从旧教程复制来的代码。\n\n"
        "先把张量复制到 GPU，再异步复制回来。\n\n"
        "`复制到` 在代码里可以。\n\n```python\nx = \"复制到\"  # 复制到 GPU\n```\n"
    ))
    where = f"{paths.rel(page)}:5"
    assert data_copies(tmp_path / "docs") == [
        f"{where}: write 拷贝到 instead of 复制到 (拷贝 for copies of data, 复制 for code and text: {GLOSSARY})",
        f"{where}: write 异步拷贝 instead of 异步复制 (拷贝 for copies of data, 复制 for code and text: {GLOSSARY})",
        # the code's comment is Chinese text too; its string is code
        f"{paths.rel(page)}:10: write 拷贝到 instead of 复制到 (拷贝 for copies of data, 复制 for code and text: {GLOSSARY})",
    ]


def test_the_glossary_rejects_synonyms():
    synonyms = rejected_synonyms(paths.DOCS)
    assert synonyms, f"{GLOSSARY}: no term lists its synonyms (a cell like 内核<br>不用：核函数)"
    terms = {s.term for s in synonyms.values()}
    clash = sorted(terms & set(synonyms))
    assert not clash, f"rejected and preferred at once: {clash}"


def test_chinese_prose_writes_the_glossary_terms():
    found = problems(paths.DOCS)
    assert not found, "rejected synonyms in Chinese prose:\n" + "\n".join(found)


def test_the_glossary_terms_are_the_pages_terms():
    found = unused_terms(paths.DOCS)
    assert not found, "glossary terms no page uses:\n" + "\n".join(found)


def test_an_english_synonym_counts_only_in_running_chinese(tmp_path):
    docs = tmp_path / "docs"
    (docs / GLOSSARY).parent.mkdir(parents=True)
    (docs / GLOSSARY).write_text(
        "# 术语表\n\n| 中文 | English |\n| --- | --- |\n"
        "| 回溯（traceback）<br>不用：traceback | traceback |\n",
        encoding="utf-8",
    )
    page = docs / CHINESE / "planted.md"
    page.write_text(
        "# 标题\n\n回溯（traceback）指向那里；Python traceback module 不算。\n\n"
        "异常的 traceback 会留住张量，`[rankN]:` traceback 里也一样，见tracebacks。\n",
        encoding="utf-8",
    )
    where, glossary = f"{paths.rel(page)}:5", f"{paths.rel(docs / GLOSSARY)}:5"
    assert problems(docs) == [
        f"{where}: write 回溯 instead of traceback (one word per concept: {glossary})"
    ]
    assert unused_terms(docs) == []
    page.write_text("# 标题\n\n异常的 traceback 会留住张量。\n", encoding="utf-8")
    assert unused_terms(docs) == [
        f"{glossary}: no Chinese page writes 回溯; make the glossary say what the pages write"
    ]


def test_a_planted_synonym_is_caught(tmp_path):
    """Every synonym the real glossary rejects is caught in prose and in code comments,
    and only there (not in the code itself, inline code, link targets, HTML comments)."""
    docs = tmp_path / "docs"
    (docs / GLOSSARY).parent.mkdir(parents=True)
    (docs / GLOSSARY).write_text((paths.DOCS / GLOSSARY).read_text(encoding="utf-8"), encoding="utf-8")
    synonyms = rejected_synonyms(docs)
    page = docs / CHINESE / "planted.md"
    planted = "".join(f"第 {i} 行写了{word}。\n" for i, word in enumerate(synonyms))
    page.write_text(
        "# 标题 { #title }\n\n"
        + planted
        + "\n<!-- 核函数 -->\n`核函数` 和 [链接](https://example.com/核函数)\n\n"
        + "```python\nx = \"核函数\"  # 核函数\n```\n",
        encoding="utf-8",
    )
    notebook = docs / CHINESE / "planted.py"
    word, synonym = next(iter(synonyms.items()))
    notebook.write_text(
        f"# %% [markdown]\n# 笔记本里的{word}\n\n# %%\nx = '{word}'  # {word}\n", encoding="utf-8"
    )

    found = problems(docs)
    expected = [
        f"{paths.rel(page)}:{3 + i}: write {s.term} instead of {word} "
        f"(one word per concept: {s.where})"
        for i, (word, s) in enumerate(synonyms.items())
    ]
    kernel = synonyms["核函数"]
    expected.append(  # the comment of the page's code block, not its string
        f"{paths.rel(page)}:{3 + len(synonyms) + 5}: write {kernel.term} instead of 核函数 "
        f"(one word per concept: {kernel.where})"
    )
    for line in (2, 5):  # the notebook's Markdown cell and its code cell's comment
        expected.append(
            f"{paths.rel(notebook)}:{line}: write {synonym.term} instead of {word} "
            f"(one word per concept: {synonym.where})"
        )
    assert sorted(found) == sorted(expected)


def test_chinese_prose_names_dimensions_as_pytorch_counts_them():
    found = zero_based_dimensions(paths.DOCS)
    assert not found, "ambiguous 第 N 维 in Chinese text:\n" + "\n".join(found)


def test_a_planted_dimension_is_caught(tmp_path):
    page = plant(tmp_path, (
        "# 标题\n\n沿第 0 维切分，`dim=1` 是通道。\n\n把通道移到第 1 维。\n\n"
        "```python\nx = x.sum(1)  # 对第1维求和\n```\n"
    ))
    rel = paths.rel(page)
    suffix = "(PyTorch counts dimensions from 0, a Chinese reader from 1: CONTRIBUTING.zh.md)"
    assert zero_based_dimensions(tmp_path / "docs") == [
        f"{rel}:5: write `dim=1` instead of 第 1 维 {suffix}",
        f"{rel}:8: write `dim=1` instead of 第1维 {suffix}",
    ]
