"""What the site serves of the search worker and the stylesheets
(devguide/mkdocs_plugin/hooks/search_per_language.py: shrink_worker, shrink_styles): smaller,
with the same meaning. A page's first load is at its budget (the notebook page, 400 kB)."""

import subprocess

import pytest

from devguide import paths
from devguide.mkdocs_plugin.hooks.search_per_language import (
    shrink_styles,
    shrink_worker,
)


def test_the_worker_loses_comments_indentation_and_spaces_around_punctuation_only(tmp_path):
    worker = tmp_path / "worker.js"
    worker.write_text(
        "// a comment line\n"
        "function f(a, b) {\n"
        "  var x = a + b;  // after code\n"
        "  var y = a - -b;\n"
        '  var s = "a = b, c";\n'
        "  var r = /a, b/g;\n"
        "  return x * y;\n"
        "}\n"
        "g(function () {\n"
        "  var u = 'http://x';  // a comment kept: the line holds a literal\n"
        "});\n", encoding="utf-8")
    shrink_worker(worker)
    assert worker.read_text(encoding="utf-8").splitlines() == [
        "function f(a,b){",
        "var x=a+b;",
        "var y = a - -b;",  # two signs in a row keep their spaces
        'var s = "a = b, c";',  # a string, a regular expression: the line is kept as it is
        "var r = /a, b/g;",
        "return x*y;}",  # closing brackets join the line before them
        "g(function(){",
        "var u = 'http://x';  // a comment kept: the line holds a literal",
        "});",  # not after a "//"
    ]


def test_the_served_worker_is_valid_javascript(tmp_path):
    if not _has_node():
        pytest.skip("node is not installed here: the browser tests (tests/site) run the served worker")
    worker = tmp_path / "search-worker.js"
    worker.write_text((paths.REPO / "docs/assets/javascripts/search-worker.js").read_text(encoding="utf-8"),
                      encoding="utf-8")
    shrink_worker(worker)
    done = subprocess.run(["node", "--check", str(worker)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _has_node() -> bool:
    try:
        subprocess.run(["node", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def test_a_stylesheet_loses_leading_zeros_but_not_inside_numbers_or_strings(tmp_path):
    sheet = tmp_path / "s.css"
    sheet.write_text('.a { margin: 0.8em 10.5em; opacity: 0.05 }\n.b::after { content: "0.5" }\n',
                     encoding="utf-8")
    shrink_styles(sheet)
    assert sheet.read_text(encoding="utf-8") == '.a{margin:.8em 10.5em;opacity:.05}.b::after{content:"0.5"}\n'
