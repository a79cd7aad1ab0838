"""Census: every fence on every page is run, CUDA-, MPS- or XPU-only, excused with a
reason, or output.

pytest-codeblocks silently ignores ```py, ```python title=…, ~~~python and
unknown languages; this test is what makes such a fence fail instead.
"""

from devguide import paths
from devguide.source import fences
from devguide.source.blocks import page_blocks
from devguide.source.marks import DEVICE_MARKS


def test_no_fence_is_silently_ignored():
    problems = [e.problem for page in fences.pages() for e in fences.classify(page) if e.problem]
    assert not problems, "fences the harness would not run:\n" + "\n".join(problems)


def test_census_agrees_with_pytest_codeblocks_extraction():
    """Every block the census counts as runnable is one pytest-codeblocks extracts."""
    for page in fences.pages():
        counted = {
            e.line
            for e in fences.classify(page)
            if e.language in fences.EXECUTED
            and e.kind in ("python", "bash", *DEVICE_MARKS, "excused")
        }
        extracted = {b.line for b in page_blocks(page)}
        assert counted == extracted, (
            f"{paths.rel(page)}: census lines {sorted(counted - extracted)} not extracted, "
            f"extracted lines {sorted(extracted - counted)} not in the census"
        )


def test_every_page_runs_something_on_cpu():
    """A page whose every block is excused or device-only proves nothing in CI."""
    idle = []
    for page in fences.pages():
        kinds = {e.kind for e in fences.classify(page)}
        if kinds & {"excused", *DEVICE_MARKS} and not kinds & {"python", "bash"}:
            idle.append(paths.rel(page))
    assert not idle, "pages with no block run on CPU: " + ", ".join(idle)


def test_census_agrees_with_what_the_site_renders():
    """Every page rendered with mkdocs.yml's own Markdown extensions (devguide.source.rendered):
    the site shows as Python or bash exactly the fences the census runs or excuses (a fence
    in a quote was shown and never run; a tab-indented one was shown as text and run)."""
    from devguide.source import rendered

    differ = [d for page in fences.pages() if (d := rendered.disagreement(page))]
    assert not differ, "\n".join(differ)
