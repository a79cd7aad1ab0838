"""--cpu-seconds (devguide.pytest_plugin.cpu_seconds): the CPU time of a run by family of
checks, the time of the processes a test starts included."""

import json

from devguide.pytest_plugin import cpu_seconds
from tests.unit.test_isolation import both, run_pytest, scratch_project

PAGE = """\
# P

'''python
print("block")
'''
"""

BUSY = """\
import subprocess
import sys


def test_a_child_that_works():
    subprocess.run([sys.executable, "-c", "x = 0\\nfor i in range(3_000_000): x += i"], check=True)


def test_idle():
    pass
"""


def test_each_test_is_counted_in_its_family():
    assert cpu_seconds.family("docs/zh/devices/moving.md::line 12") == "blocks (docs/)"
    assert cpu_seconds.family("docs/zh/devices/moving.md::twin") == "twin checks (docs/)"
    assert cpu_seconds.family("tests/unit/test_marks.py::test_x[a]") == "tests/unit"
    assert cpu_seconds.family("tests/site/test_search.py::test_y[zh]") == "tests/site/test_search"


def test_a_run_writes_its_cpu_time_by_family_with_its_childrens(tmp_path):
    root = scratch_project(tmp_path, both(PAGE))
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "tests" / "unit" / "test_busy.py").write_text(BUSY, encoding="utf-8")
    out_file = tmp_path / "cpu.json"
    code, out = run_pytest(root, f"--cpu-seconds={out_file}")
    assert code == 0, out[-3000:]
    data = json.loads(out_file.read_text())
    assert data["processes"] == 1 and data["wall"] > 0
    families = data["families"]
    assert families["tests/unit"] >= 0.1, families  # the child's loop counts with its test
    assert families["blocks (docs/)"] > 0, families
    assert abs(sum(families.values()) - data["total"]) < 0.5, data
    busy = "tests/unit/test_busy.py::test_a_child_that_works"
    assert data["slowest"][busy] >= 0.1, data["slowest"]  # (the block's first test starts the block runner)
    assert list(data["slowest"].values()) == sorted(data["slowest"].values(), reverse=True), data["slowest"]
    # under pytest-xdist the controller counts itself only: its descendants are the
    # workers, which count theirs (counted twice, the total would pass what the cores can give)
    code, out = run_pytest(root, "-n", "2", f"--cpu-seconds={out_file}")
    assert code == 0, out[-3000:]
    data = json.loads(out_file.read_text())
    assert data["processes"] == 3 and data["families"]["tests/unit"] >= 0.1, data
    assert data["total"] <= data["wall"] * 2 + 0.5, data
    assert "tests/unit/test_busy.py::test_idle" in data["slowest"], data  # the workers' tests too
