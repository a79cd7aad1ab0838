"""Chinese comments in Chinese code: each language comments in its own words, the code is one.

Parity compares the code without its comments (Python's tokens, a bash block's lines
less their ``#`` comments), names the page line of the first token that differs,
twins whose code differs only in comments still run once, ``parity --fix`` leaves
such blocks alone, and a page's download carries that page's own comments.
"""

import pytest

from devguide.mkdocs_plugin.reader import downloads
from devguide.pytest_plugin import page_items
from devguide.source import comments, parity
from devguide.source.blocks import page_blocks

ZH = """\
# 标题 { #t }

'''python
import torch

# 在 CPU 上建一个张量
x = torch.ones(2)  # (1)!
print(x.sum().item())  # 求和
'''

<!--pytest-codeblocks:expected-output-->
'''text
2.0
'''

'''bash
# 检查 Python 能否导入 torch
python -c "import torch; print('#', torch.__version__)"  # 打印版本
'''
"""

EN = """\
# Title { #t }

'''python
import torch

# A tensor on the CPU,
# made the plain way
x = torch.ones(2)  # (1)!
print(x.sum().item())
'''

<!--pytest-codeblocks:expected-output-->
'''text
2.0
'''

'''bash
python -c "import torch; print('#', torch.__version__)"  # prints the version
'''
"""


def test_twins_whose_comments_differ_agree(write_page):
    zh = write_page(ZH, "docs/zh/p.md")
    en = write_page(EN, "docs/en/p.md")
    assert parity.parity_problems(zh, en) == []


def test_a_token_that_differs_is_named_at_its_page_lines(write_page):
    zh = write_page(ZH.replace("print(x.sum()", "print(x.mean()"), "docs/zh/p.md")
    en = write_page(EN, "docs/en/p.md")
    (problem,) = parity.parity_problems(zh, en)
    # the print line: zh line 8 (one comment line above it), en line 9 (two)
    assert problem.startswith(f"{zh.as_posix()}:8 differs from {en.as_posix()}:9 ")
    assert "comments may differ" in problem


def test_spacing_and_strings_count_comments_do_not(write_page):
    en = write_page(EN, "docs/en/p.md")
    for change, line in [
        ("x = torch.ones(2)", 7),  # spacing inside the code
        ("print('#', torch", 18),  # a '#' inside a string is code
    ]:
        edited = ZH.replace(change, change.replace(" = ", "=").replace("'#'", "'# '"))
        zh = write_page(edited, "docs/zh/p.md")
        (problem,) = parity.parity_problems(zh, en)
        assert problem.startswith(f"{zh.as_posix()}:{line} differs"), problem


def test_twins_whose_comments_differ_still_run_once(write_page):
    zh = write_page(ZH, "docs/zh/p.md")
    en = write_page(EN, "docs/en/p.md")
    blocks = {"docs/zh/p.md": page_blocks(zh), "docs/en/p.md": page_blocks(en)}
    pairs = page_items.identical_twins(blocks)
    assert [(a.line, b.line) for a, b in pairs] == [(3, 3), (16, 17)]
    # code that differs by a token: both run
    en.write_text(en.read_text(encoding="utf-8").replace("ones(2)", "ones(3)"), encoding="utf-8")
    blocks["docs/en/p.md"] = page_blocks(en)
    assert page_items.identical_twins(blocks) == []


def test_parity_fix_leaves_blocks_that_differ_only_in_comments(write_page):
    zh = write_page(ZH.replace("2.0", "3.0"), "docs/zh/p.md")
    en = write_page(EN, "docs/en/p.md")
    done = parity.fix(zh, en)
    assert len(done) == 1 and done[0].startswith(f"{en}:13: replaced with {zh}:12")
    text = en.read_text(encoding="utf-8")
    assert "# A tensor on the CPU," in text and "# prints the version" in text and "3.0" in text
    assert parity.parity_problems(zh, en) == []


def test_a_copied_block_with_comments_asks_for_their_translation(write_page):
    zh = write_page(ZH.replace("ones(2)", "ones(5)"), "docs/zh/p.md")
    en = write_page(EN, "docs/en/p.md")
    (done,) = parity.fix(zh, en)
    assert done.endswith("(its comments are now the other language's: translate them)")


def test_notebook_cells_may_comment_in_their_language(tmp_path):
    zh, en = tmp_path / "zh.py", tmp_path / "en.py"
    zh.write_text("# %% [markdown]\n# 说明\n\n# %%\n# 求和\nx = 1 + 1  # 得 2\n", encoding="utf-8")
    en.write_text("# %% [markdown]\n# Prose\n\n# %%\nx = 1 + 1  # gives 2\n", encoding="utf-8")
    assert parity.parity_problems(zh, en) == []
    en.write_text("# %% [markdown]\n# Prose\n\n# %%\nx = 1 + 2\n", encoding="utf-8")
    (problem,) = parity.parity_problems(zh, en)
    assert "notebook code cells differ" in problem


@pytest.mark.parametrize(
    "code,kept",
    [
        ("echo hi  # say hi\n", ["echo hi"]),
        ("# a whole line\nls\n", ["ls"]),
        ("echo '# not a comment' \"# nor this\"\n", ["echo '# not a comment' \"# nor this\""]),
        ("echo $# ${#x} a#b\n", ["echo $# ${#x} a#b"]),
        ("echo \\# x  # escaped\n", ["echo \\# x"]),
        ("echo 'two\n# lines'  # end\n", ["echo 'two", "# lines'"]),
        ("cat <<'EOF'\n# kept: a here-document\nEOF\n", ["cat <<'EOF'", "# kept: a here-document", "EOF"]),
        ("make;# done\n", ["make;"]),
    ],
)
def test_bash_comments_are_cut_outside_quotes(code, kept):
    assert [t.text[0] for t in comments.code_tokens(code, "bash")] == kept


def test_python_comments_and_blank_lines_are_left_out():
    a = "x = [1,  # one\n     2]\n\n# done\n"
    b = "x = [1,  # 一\n     2]\n"
    assert comments.without_comments(a, "python") == comments.without_comments(b, "python")
    assert comments.has_comments(a, "python") and not comments.has_comments("x = '#'\n", "python")
    # code that does not tokenize is compared as written
    assert comments.without_comments("x = (\n", "python") == (("x = (\n",),)


def test_a_chinese_pages_download_carries_its_chinese_comments(write_page):
    zh = write_page(ZH, "docs/zh/p.md")
    script = downloads.page_script(zh)
    assert "# 在 CPU 上建一个张量\nx = torch.ones(2)  # (1)!\nprint(x.sum().item())  # 求和" in script
    assert "# # 检查 Python 能否导入 torch" in script  # bash: commented out, comment kept


def test_comment_texts_name_each_comment_at_its_line():
    code = "x = '#'  # 一\n# 二\ny = 1\n"
    assert comments.comment_texts(code, "python") == [(1, "一"), (2, "二")]
    assert comments.comment_texts("ls  # 列出\necho '#'\n", "bash") == [(1, "列出")]


def test_a_python_block_without_comments_is_the_same_text_on_every_python():
    """The census's block hash is made of it: token type numbers (OP is 54 on 3.11,
    55 on 3.12) and 3.12's split f-strings must not enter it, or a GPU machine's
    Python gives every block another hash than the site's."""
    code = 'x = f"a{1}"  # a comment\n\n# a line of comment\nprint(x)   \n'
    assert comments.without_comments(code, "python") == (('x = f"a{1}"',), ("print(x)",))
    twin = 'x = f"a{1}"  # 注释\n# 整行注释\n\nprint(x)\n'
    assert comments.without_comments(twin, "python") == comments.without_comments(code, "python")
    assert comments.without_comments("x = (\n", "python") == (("x = (\n",),)  # does not tokenize: as written


def test_a_blocks_hash_covers_the_snippet_files_it_runs():
    """A recorded GPU result must stop counting when the script a block runs changes."""
    import hashlib

    from devguide import paths
    from devguide.census import file as census

    name = "snippets/distributed/nccl_watchdog_timeout.py"
    digest = hashlib.sha256((paths.REPO / name).read_bytes()).hexdigest()[:16]
    code = f'subprocess.run([sys.executable, "{name}"])  # x\nprint("docs/{name}")\n'
    assert census.snippets_run(code) == [(name, digest)]  # docs/snippets/… is not a snippet path
    assert census.snippets_run("python snippets/no-such-file.py") == []


def test_the_comments_of_a_script_held_as_text_are_comments():
    """A child script in a triple-quoted string, or written by a here-document to a .py
    file, comments in each language's words: parity and the block's hash leave those
    comments out, and comment_texts names them at their page line."""
    en = 'child = """\nimport torch  # too late\n# a whole line\nprint(1)\n"""\nx = "# kept"\n'
    zh = 'child = """\nimport torch  # 太晚了\nprint(1)\n"""\nx = "# kept"\n'
    assert comments.without_comments(en, "python") == comments.without_comments(zh, "python")
    assert [t.text for t in comments.code_tokens(en, "python")] == [t.text for t in comments.code_tokens(zh, "python")]
    assert comments.comment_texts(zh, "python") == [(2, "太晚了")]
    # the script's code still counts, and an escaped string is compared as written
    assert comments.without_comments(en.replace("print(1)", "print(2)"), "python") != comments.without_comments(en, "python")
    assert comments.comment_texts('s = """\\\\n# not read\n"""\n', "python") == []
    bash_en = "cat > a.py <<'PY'\nx = 1  # one\nPY\ncat <<'EOF'\n# kept\nEOF\n"
    bash_zh = "cat > a.py <<'PY'\nx = 1  # 一\nPY\ncat <<'EOF'\n# kept\nEOF\n"
    assert comments.code_tokens(bash_en, "bash") == comments.code_tokens(bash_zh, "bash")
    assert comments.comment_texts(bash_zh, "bash") == [(2, "一")]
