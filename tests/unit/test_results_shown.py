"""What the site says about the test results: the recorded summary and each page's line."""

import json
import re

from devguide.census import results, summary
from devguide.mkdocs_plugin import words
from devguide.mkdocs_plugin.report import validated_line, validation_page

PAGE = "docs/en/async/streams.md"  # CPU blocks and CUDA-only blocks


def census(status_by_sha, machine=None, generated="2026-11-23T12:59:22Z"):
    fences = [
        {"page": PAGE, "line": n, "language": "python", "kind": "python", "sha": sha, "status": st}
        for n, (sha, st) in enumerate(status_by_sha.items(), 1)
    ]
    machine = machine or {"torch": "2.13.0+cpu", "python": "3.11.7", "accelerator": "cpu", "cpu": "AMD EPYC"}
    return {"generated": generated, "machine": machine, "fences": fences}


def test_the_summary_changes_only_when_the_results_do(tmp_path):
    path = tmp_path / "summary.json"
    first = census({"a" * 16: "passed", "b" * 16: "failed"})
    assert summary.write_if_changed(first, path)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text)["results"]["pages"][PAGE] == {"failed": ["b" * 16], "passed": ["a" * 16]}
    # the same results on another machine, another day: the file stays as it is
    again = census({"a" * 16: "passed", "b" * 16: "failed"}, {"torch": "2.13.0+cpu", "python": "3.11.9", "accelerator": "cpu", "cpu": "Intel Xeon"}, "2026-12-01T00:00:00Z")
    assert not summary.write_if_changed(again, path)
    assert path.read_text(encoding="utf-8") == text
    # a fixed block: rewritten, whole, from that run
    fixed = census({"a" * 16: "passed", "b" * 16: "passed"}, again["machine"], again["generated"])
    assert summary.write_if_changed(fixed, path)
    data = summary.load(path)
    assert data["machine"]["cpu"] == "Intel Xeon" and data["generated"] == "2026-12-01T00:00:00Z"
    assert not summary.records(census({}, {"torch": "2.11.0+cu130", "python": "3.12", "accelerator": "cuda"}))


def test_the_summary_keeps_a_checked_out_files_mode(tmp_path):
    """Written through a temporary file (mkstemp makes it 0600), it ends up as git
    would check it out: 0644 under the usual umask."""
    import os

    path = tmp_path / "summary.json"
    old = os.umask(0o022)
    try:
        assert summary.write_if_changed(census({"a" * 16: "passed"}), path)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_failing_run_leaves_the_summary_alone(tmp_path, monkeypatch):
    import pytest

    from devguide.pytest_plugin.state import RunState

    path = tmp_path / "summary.json"
    monkeypatch.setattr(summary, "PATH", path)
    summary.write_if_changed(census({"a" * 16: "passed"}), path)
    before = path.read_text(encoding="utf-8")
    changed = census({"a" * 16: "passed", "b" * 16: "passed"})
    # a run whose blocks all passed but whose site build failed (a new page, say)
    state = RunState(results={(PAGE, 1): {"status": "passed"}})
    state.record_summary(changed, pytest.ExitCode.TESTS_FAILED)
    assert path.read_text(encoding="utf-8") == before
    assert state.notes == [f"{path.as_posix()} left as it is: this run failed (a green run records its results)"]
    # a failed block, whatever the exit status says
    state = RunState(results={(PAGE, 1): {"status": "failed"}})
    state.record_summary(changed, pytest.ExitCode.OK)
    assert path.read_text(encoding="utf-8") == before
    # the same run, green: recorded
    state = RunState(results={(PAGE, 1): {"status": "passed"}})
    state.record_summary(changed, pytest.ExitCode.OK)
    assert path.read_text(encoding="utf-8") != before
    assert state.notes[0].startswith("results changed: ")


def run(status, source="test", machine=None):
    machine = machine or {"torch": "2.13.0+cpu", "python": "3.11.7", "accelerator": "cpu"}
    return results.Run("2026-11-23T12:59:22Z", machine, source, status)


def line(lang, cpu_status, gpu_status=None):
    st = results.page_status(PAGE, run({}), run({}))
    cpu_blocks = st.of_kind("python", "bash")
    cuda_blocks = st.of_kind("cuda")
    cpu = run({(PAGE, b.sha): cpu_status(i) for i, b in enumerate(cpu_blocks) if cpu_status(i)})
    gpu = None
    if gpu_status is not None:
        gpu = run({(PAGE, b.sha): gpu_status(i) for i, b in enumerate(cuda_blocks) if gpu_status(i)}, "gpu",
                  {"torch": "2.11.0+cu130", "python": "3.12.3", "accelerator": "cuda", "gpus": ["NVIDIA H100"]})
    st = results.page_status(PAGE, cpu, gpu)
    return re.sub(r"<[^>]+>", "", " · ".join(validated_line.line_parts(lang, st, cpu, gpu))), len(cpu_blocks), len(cuda_blocks)


def test_the_line_says_what_ran_and_never_passed_and_failed_at_once():
    text, n, cuda = line("en", lambda i: "passed", lambda i: "passed")
    assert text == (f"✓ {n} example{'s' * (n != 1)} passed on CPU (torch 2.13.0) · "
                    f"✓ CUDA: {cuda} of {cuda} ran on a GPU (torch 2.11.0)")
    text, n, cuda = line("en", lambda i: "failed" if i == 0 else "passed", lambda i: None)
    assert text.startswith(f"✗ 1 of {n} examples failed on CPU") and "✓" not in text.split("·")[0]
    assert text.endswith(f"○ CUDA: 0 of {cuda} ran on a GPU")
    text, n, cuda = line("zh", lambda i: "passed", lambda i: "passed" if i else None)
    assert text.endswith(f"○ GPU 上运行过 {cuda - 1}/{cuda} 个 CUDA 示例（torch 2.11.0）")
    text, n, cuda = line("zh", lambda i: "passed", lambda i: "passed")
    assert text.endswith(f"✓ GPU 上运行过 {cuda}/{cuda} 个 CUDA 示例（torch 2.11.0）")


def test_the_line_is_short_and_claims_no_more_than_ran():
    """The site's torch version and the GPU run's (review 2026-12-06, problem 4: the
    line read as if the site's version had run on a GPU), no GPU name on the line (the
    tooltip and the report have it); no ✓ for a kind of block unless every one of them passed."""
    for lang in ("en", "zh"):
        text, n, cuda = line(lang, lambda i: "passed" if i else None, lambda i: "passed" if i else None)
        cpu_part, gpu_part = text.split(" · ")
        assert "✓" not in text and cpu_part.startswith("○") and gpu_part.startswith("○"), text
        assert "torch 2.11.0" in gpu_part and "H100" not in text and text.count("torch") <= 2, text
        assert len(text) <= (60 if lang == "zh" else 105), text
    html = " · ".join(validated_line.line_parts("en", *_status(lambda i: "passed", lambda i: "passed")))
    assert 'title="NVIDIA H100, torch 2.11.0+cu130, 23 November 2026"' in html, html


def _status(cpu_status, gpu_status):
    st = results.page_status(PAGE, run({}), run({}))
    cpu = run({(PAGE, b.sha): cpu_status(i) for i, b in enumerate(st.of_kind("python", "bash"))})
    gpu = run({(PAGE, b.sha): gpu_status(i) for i, b in enumerate(st.of_kind("cuda"))}, "gpu",
              {"torch": "2.11.0+cu130", "python": "3.12.3", "accelerator": "cuda", "gpus": ["NVIDIA H100"]})
    return results.page_status(PAGE, cpu, gpu), cpu, gpu


def test_a_block_changed_since_the_run_is_not_yet_run():
    text, n, _ = line("en", lambda i: None)  # no block's hash in the run
    assert text.startswith(f"○ {n} example")
    assert "not yet run" in text.split("·")[0]


def test_standard_reasons_are_translated():
    assert words.reason("zh", "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)").startswith("需要 CUDA 设备")
    assert words.reason("zh", "needs two GPUs") == "需要两块 GPU"
    assert words.reason("en", "needs two GPUs") == "needs two GPUs"


def test_row_ids():
    assert validated_line.row_id("docs/en/async/streams.md") == "page-async-streams"
    assert validated_line.row_id("docs/zh/index.md") == "page-home"
    assert validated_line.row_id("docs/zh/getting-started/index.md") == "page-getting-started"
    assert validated_line.row_id("docs/en/getting-started/device-tour.py") == "page-getting-started-device-tour"


def test_a_build_without_a_test_run_shows_the_recorded_run(tmp_path, monkeypatch):
    st = results.page_status(PAGE, run({}), run({}))
    shas = [b.sha for b in st.of_kind("python", "bash")]
    recorded = tmp_path / "summary.json"
    summary.write_if_changed(census({sha: "passed" for sha in shas}), recorded)
    monkeypatch.setattr(summary, "PATH", recorded)
    monkeypatch.setattr(results.paths, "VALIDATION_JSON", tmp_path / "no-test-run.json")
    cpu = results.cpu_run()
    assert cpu is not None and cpu.source == "recorded" and cpu.machine["cpu"] == "AMD EPYC"
    assert len(results.page_status(PAGE, cpu, None).cpu["passed"]) == len(shas)
    rendered = validation_page.render("en")
    assert "From the last run recorded in the repository" in rendered and "AMD EPYC" in rendered


def test_the_pages_say_which_torch_versions_ran_from_the_recorded_runs():
    """Review 2026-12-06, problem 2: the report and getting started claimed a run on the
    newest release that no file held. Their sentences are made from the runs: the
    newest release is said to be checked only when a run of it is recorded."""
    from devguide import paths
    from devguide.mkdocs_plugin.report import validation_page

    newest = paths.newest_torch()
    pinned = run({})
    alone = [("2.13.0", pinned)]
    for lang in ("zh", "en"):
        for where in ("report", "install"):
            text = validation_page.torch_runs(lang, where, alone)
            assert "2.13.0" in text and newest in text, text
            assert ("没有记录到运行结果" if lang == "zh" else "No run on the newest release") in text.replace("no run", "No run"), text
            assert "再验证一遍" not in text and "again with" not in text, text
    other = run({}, machine={"torch": f"{newest}+cpu", "python": "3.11.7", "accelerator": "cpu"})
    both = [("2.13.0", pinned), (newest, other)]
    assert f"again with the newest release, **{newest}**" in validation_page.torch_runs("en", "install", both)
    assert f"2.13.0 from `make test`, {newest} from `make test-torch`" in validation_page.torch_runs("en", "report", both)
    assert "没有记录" not in validation_page.torch_runs("zh", "install", both)
    # a version whose run is not recorded (None: the pinned column with no run yet) is not claimed
    assert "again with" not in validation_page.torch_runs("en", "install", [("2.13.0", pinned), (newest, None)])
