"""make bench prints each budget of issue 28 with the measured value and whether it is met."""

import subprocess

from devguide.dev import bench


def test_each_budget_is_printed_with_its_measure_and_verdict():
    lines = bench.budget_lines(112.4, 29.0, 3.7, "devices/moving")
    assert lines[0].startswith("budgets (issue 28; ")
    assert lines[1].split() == ["every", "block", "run", "(CI,", "make", "test-all),", "pytest's", "time",
                                "112.4", "s", "budget", "90", "s", "MISSED"]
    assert lines[2].endswith("29.0 s   budget   30 s   met")
    assert "(devices/moving)" in lines[3] and lines[3].endswith("MISSED")
    assert lines[4] == "  1 of 3 budgets met"


def test_pytest_time_is_read_from_its_last_line():
    done = subprocess.CompletedProcess([], 0, "....\n887 passed, 133 skipped in 112.40s (0:01:52)\n", "")
    assert bench.pytest_seconds(done, 130.0) == 112.4
    assert bench.pytest_seconds(subprocess.CompletedProcess([], 1, "", ""), 130.0) == 130.0


def test_the_cpu_time_is_printed_by_family_with_the_wall_time_against_it():
    data = {"wall": 600.0, "processes": 3, "total": 1000.0,
            "families": {"blocks (docs/)": 700.0, "tests/site/test_search": 300.0}}
    lines = bench.cpu_lines(data, 2)
    assert lines[1].split() == ["blocks", "(docs/)", "700.0", "s"]
    assert lines[3].split()[-2:] == ["1000.0", "s"]
    assert lines[4].startswith("  wall 600.0 s = 1.20 x the total over 2 cores (500.0 s;")
    assert len(lines) == 5  # a record without its slowest tests (written before they were kept)
    data["slowest"] = {"tests/site/test_search.py::test_real[zh]": 150.0, "docs/zh/p.md::line 3": 2.5}
    lines = bench.cpu_lines(data, 2)
    assert lines[6].split() == ["150.0", "s", "tests/site/test_search.py::test_real[zh]"], lines
