"""The runnable blocks of a page (devguide.source.blocks): what their outputs are
compared with, and what a block may not switch off."""

import pytest

from devguide import paths
from devguide.run import zygote_client
from devguide.source.blocks import page_blocks

WHITESPACE_PAGE = """\
# T

'''python
print("[12  3]")
'''

<!--pytest-codeblocks:expected-output-ignore-whitespace-->
'''text
[1 2 3]
'''
"""


def test_ignore_whitespace_normalises_runs_of_whitespace_and_keeps_them(write_page):
    """H21: the comparison removed all whitespace, so ``[12  3]`` passed for ``[1 2 3]``
    (NumPy prints arrays without commas)."""
    (block,) = page_blocks(write_page(WHITESPACE_PAGE))
    with pytest.raises(zygote_client.BlockFailure, match=r"page\.md:3: printed output differs from the expected output at .*page\.md:8"):
        zygote_client.check_output(block, "[12  3]\n")
    zygote_client.check_output(block, "[1  2\n   3]\n\n")  # runs of whitespace, other ends: the same
    zygote_client.check_output(block, "  [1\t2 3]")


VARIANT_PAGE = """\
# T

'''python
print(2 + 2)
'''

<!--pytest-codeblocks:expected-output-->
'''text
5
'''

<!--docs:expected-output {spec}-->
'''text
4
'''
"""


@pytest.mark.parametrize("spec", ["torch>=0", "torch>=2.11", "torch!=2.12.*", "torch==2.13.*"])
def test_a_variant_may_not_cover_the_pinned_torch(write_page, spec):
    """H22: ``<!--docs:expected-output torch>=0-->`` matched the pinned torch, so the
    wrong usual output (``5``) that readers see first was never compared."""
    assert paths.pinned_torch().startswith("2.13")
    p = write_page(VARIANT_PAGE.format(spec=spec))
    with pytest.raises(paths.DocsError, match=rf"{p}:12: .*covers the pinned torch 2\.13.*never be compared"):
        page_blocks(p)


def test_on_the_pinned_torch_the_usual_output_is_compared(write_page, monkeypatch):
    """H22, second guard: whatever variants a block has, the pinned torch is compared
    with the output readers see first."""
    (block,) = page_blocks(write_page(VARIANT_PAGE.format(spec="torch<2.12")))
    block.variants = [("torch>=0", "4\n", block.variants[0][2])]  # as if the census had let it through
    monkeypatch.setattr(paths, "torch_version", paths.pinned_torch)
    with pytest.raises(zygote_client.BlockFailure, match=r"page\.md:3: printed output differs from the expected output at .*page\.md:8"):
        zygote_client.check_output(block, "4\n")
    monkeypatch.setattr(paths, "torch_version", lambda: "2.11.0")
    zygote_client.check_output(block, "4\n")


@pytest.mark.parametrize("line", [
    "set +e +o pipefail", "set +e", "set +o errexit", "set +o pipefail", "set +eo pipefail",
    "cd /tmp && set +e", "shopt -u -o errexit",
])
def test_a_bash_block_may_not_switch_off_its_own_failure(write_page, line):
    """H27: ``set +e +o pipefail`` let a failing command pass (the harness runs bash
    with -euo pipefail; the try/except check had no bash counterpart)."""
    p = write_page(f"# T\n\n'''bash\necho start\n{line}\npython -c 'import no_such_module'\n'''\n")
    with pytest.raises(paths.DocsError, match=rf"{p}:5: .*switches off .*pytest\.mark\.skip\(reason="):
        page_blocks(p)


@pytest.mark.parametrize("line", ["set -e", "set -o pipefail", "set +x", "set +u", "echo 'set +e'",
                                  "# set +e in a comment", "python -c 'print(1)'  # then set +e"])
def test_bash_that_keeps_its_failure_options_is_not_refused(write_page, line):
    (block,) = page_blocks(write_page(f"'''bash\n{line}\n'''\n"))
    assert block.language == "bash"


def test_an_excused_bash_block_may_switch_off_its_failure(write_page):
    p = write_page('<!--pytest.mark.skip(reason="shown only: a shell session")-->\n\'\'\'bash\nset +e\nfalse\n\'\'\'\n')
    (block,) = page_blocks(p)
    assert block.mark_names == {"skip"}


def test_a_page_too_long_to_read_says_what_the_author_can_do(write_page):
    """Issue 39, H26: a 50,000-line page failed with pytest-codeblocks' "File too large (> 10000
    lines). Set max_num_lines.", a setting no author has. The message says what to do instead."""
    from devguide.source.blocks import PAGE_MOST_LINES

    page = write_page("# P\n\n'''python\n" + "x = 1\n" * (PAGE_MOST_LINES + 5) + "'''\n", "docs/zh/huge.md")
    with pytest.raises(paths.DocsError) as caught:
        page_blocks(page)
    message = str(caught.value)
    assert message.endswith("huge.md:1: the page has 10,009 lines, and pytest-codeblocks reads at most 10,000: split "
                            "it into pages of fewer lines (each with its twin, in mkdocs.yml's nav)"), message
    assert "split it into pages" in message and "max_num_lines" not in message


def test_a_long_blocks_failure_lists_its_first_and_last_lines(write_page):
    """Issue 39, H26: a failing 9,900-line block made a failure report of 9,926 lines."""
    from devguide.source.blocks import NUMBERED_MOST, numbered

    page = write_page("# P\n\n'''python\n" + "".join(f"x{n} = {n}\n" for n in range(9900)) + "assert x9899 == 0\n'''\n")
    listed = numbered(page_blocks(page)[0]).splitlines()
    assert len(listed) == NUMBERED_MOST + 1
    assert listed[0].endswith("| x0 = 0") and listed[-1].endswith("| assert x9899 == 0")
    assert "9841 lines of the block left out" in listed[NUMBERED_MOST // 2]
