"""The build leaves out a page that is not plain UTF-8, with an error at its line
(devguide.mkdocs_plugin.hooks.unreadable_pages): the other pages build and serve."""

import logging

import pytest
from mkdocs.structure.files import File, Files

from devguide import paths
from devguide.mkdocs_plugin.hooks import unreadable_pages


@pytest.mark.parametrize("data,line,says", [
    (b"# B\n\nCaf\xe9 au lait.\n", 3, "byte E9 (column 4) is not UTF-8"),  # H23
    (b"\xef\xbb\xbf```python\nprint(1)\n```\n\n```python\nprint(2)\n```\n", 1, "a byte-order mark"),  # H24
])
def test_an_unreadable_page_is_left_out_of_the_build_with_its_line(tmp_path, monkeypatch, caplog, data, line, says):
    """H23/H24: MkDocs stopped with a Python traceback (a UnicodeDecodeError, or the
    census's error about the fence after the BOM), so ``make serve`` was down."""
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en/bad.md").write_bytes(data)
    (docs / "en/fine.md").write_text("# F\n", encoding="utf-8")
    monkeypatch.setattr(paths, "DOCS", docs)
    files = Files([File(f"en/{name}.md", str(docs), str(tmp_path / "site"), True) for name in ("bad", "fine")])
    with caplog.at_level(logging.ERROR, logger="mkdocs.plugins.devguide"):
        kept = unreadable_pages.on_files(files, config=None)
    assert [f.src_uri for f in kept] == ["en/fine.md"]
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and f"bad.md:{line}: {says}" in record.getMessage()
    assert "left out of this build" in record.getMessage()
