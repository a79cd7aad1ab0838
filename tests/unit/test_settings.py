"""devguide/settings.py: the environment variables the package reads, in one place,
each read when it is used, and the table of both CONTRIBUTING files."""

import ast
import re

import pytest

from devguide import paths, settings
from devguide.run import limit, sandbox

ROW = re.compile(r"^\| `(\w+)` \|", re.M)


def test_the_defaults_and_the_values_read():
    empty = settings.current({})
    assert (empty.root, empty.torch, empty.require_cuda) == (None, "", False)
    assert (empty.run_timeout, empty.block_memory_gb, empty.block_output_mb) == (3600.0, None, 10.0)
    assert (empty.landlock, empty.fork, empty.xdist_workers, empty.omp_threads_set) == (True, True, 1, False)
    assert (empty.site_torch, empty.offline_zip, empty.print_pdfs, empty.chromium, empty.npm_registry) == (None,) * 5
    assert str(empty.iframe_worker_shim) == settings.DEFAULT_IFRAME_WORKER_SHIM
    now = settings.current({
        "DEVGUIDE_ROOT": "/p", "DOCS_TORCH": "any", "REQUIRE_CUDA": "0", "DOCS_RUN_TIMEOUT": "",
        "DOCS_BLOCK_MEMORY_GB": "1.5", "DOCS_BLOCK_OUTPUT_MB": "2", "DOCS_LANDLOCK": "0", "DOCS_FORK": "0",
        "PYTEST_XDIST_WORKER_COUNT": "2", "OMP_NUM_THREADS": "3", "npm_config_registry": "https://r/",
        "UNRELATED": "x",
    })
    assert (str(now.root), now.torch, now.require_cuda, now.run_timeout) == ("/p", "any", False, 0.0)
    assert (now.block_memory_gb, now.block_output_mb, now.landlock, now.fork) == (1.5, 2.0, False, False)
    assert (now.xdist_workers, now.omp_threads_set, now.npm_registry) == (2, True, "https://r/")
    assert "UNRELATED" not in now.env


@pytest.mark.parametrize("name,value,read", [
    ("DOCS_RUN_TIMEOUT", "an hour", "run_timeout"),
    ("DOCS_BLOCK_MEMORY_GB", "4G", "block_memory_gb"),
    ("DOCS_BLOCK_OUTPUT_MB", "ten", "block_output_mb"),
    ("PYTEST_XDIST_WORKER_COUNT", "two", "xdist_workers"),
])
def test_a_bad_value_names_its_variable_when_it_is_read(name, value, read):
    now = settings.current({name: value})  # nothing is read yet: the other settings stand
    assert now.fork and now.landlock
    with pytest.raises(settings.SettingError, match=rf"^{name}='{re.escape(value)}': not a "):
        getattr(now, read)


def test_each_variable_is_read_when_it_is_used(monkeypatch):
    monkeypatch.setenv("DOCS_RUN_TIMEOUT", "12")
    monkeypatch.setenv("DOCS_BLOCK_OUTPUT_MB", "3")
    assert (limit.run_timeout(), sandbox.output_limit()) == (12.0, 3 * 2**20)
    monkeypatch.setenv("DOCS_TORCH", "2.15.0")
    assert (paths.named_torch(), paths.torch_mode()) == ("2.15.0", "named")
    monkeypatch.delenv("DOCS_TORCH")
    assert paths.torch_mode() == "pinned"


def test_only_settings_reads_the_environment_by_name():
    """os.environ["X"], os.environ.get("X"), os.getenv("X") and "X" in os.environ appear
    in devguide/settings.py only (copying the whole environment, as the sandbox does
    for a block, is not reading a setting)."""
    found = []
    for path in sorted((paths.REPO / "devguide").rglob("*.py")):
        if path.name == "settings.py" and path.parent.name == "devguide":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                if node.func.attr in ("get", "getenv") and ast.unparse(node.func.value) in ("os.environ", "os"):
                    target = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                target = node.slice
            elif isinstance(node, ast.Compare) and any(ast.unparse(c) == "os.environ" for c in node.comparators):
                target = node.left
            if target is not None:
                found.append(f"{paths.rel(path)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, f"read these in devguide/settings.py (a property of Settings) and use it: {found}"


@pytest.mark.parametrize("document", ["CONTRIBUTING.md", "CONTRIBUTING.zh.md"])
def test_both_contributing_files_list_every_variable_in_order(document):
    text = (paths.REPO / document).read_text(encoding="utf-8")
    table = text.split("`devguide/settings.py`", 1)[1].split("\n## ", 1)[0]
    assert ROW.findall(table) == list(settings.VARIABLES), (
        f"{document}: the table of environment variables lists {ROW.findall(table)}; "
        f"devguide/settings.py's VARIABLES are {list(settings.VARIABLES)}: make them the same, in that order")
