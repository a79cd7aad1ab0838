"""torch's facts come from a process of their own (devguide.census.torch_facts): the pytest
process that runs a page never imports torch (its import and its teardown cost
about 1.6 s of a page's run), and the facts are torch's own."""

import importlib.metadata
import os
import subprocess
import sys

from devguide import paths
from devguide.census import torch_facts


def test_the_facts_are_those_of_the_installed_torch():
    facts = torch_facts.facts()
    assert facts["torch"].split("+")[0] == importlib.metadata.version("torch").split("+")[0]
    assert set(facts["devices"]) == {"cuda", "mps", "xpu"}
    assert isinstance(facts["cpu_capability"], str) and facts["cpu_capability"]
    assert paths.device_available("cuda") is facts["devices"]["cuda"]


def test_missing_torch_names_are_found_there():
    assert torch_facts.first_missing([["torch", "cuda", "Event"], ["torch", "cuda", "event"], ["torch", "nope", "x"]]) == [
        None,
        "torch.cuda.event",
        "torch.nope",
    ]
    assert torch_facts.first_missing([]) == []


def test_what_the_harness_asks_of_torch_does_not_import_it_in_the_process_that_asks():
    code = (
        "import sys\n"
        "from devguide import paths\n"
        "from devguide.census import file as census, machine\n"
        "from devguide.run import sandbox\n"
        "census.environment_fingerprint(sandbox.block_limits())\n"
        "paths.device_available('cuda')\n"
        "machine.machine()\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_process_that_cannot_answer_says_what_to_check(monkeypatch):
    monkeypatch.setattr(torch_facts, "_proc", [])  # its own process: the worker's shared one stays
    monkeypatch.setattr(torch_facts.sys, "executable", "/bin/false")
    try:
        torch_facts.ask({"facts": True})
    except RuntimeError as e:
        assert "devguide.census.torch_facts" in str(e) and "import torch" in str(e)
    else:
        raise AssertionError("expected a RuntimeError")
    finally:
        torch_facts.stop()


def test_what_torch_prints_on_stdout_does_not_get_in_the_way(tmp_path, monkeypatch):
    """A line without its newline on stdout (from torch, or a module imported for the
    API check) would otherwise be glued to the reply: the process sends it to stderr."""
    noisy = tmp_path / "sitecustomize.py"
    noisy.write_text("import sys\nsys.stdout.write('noise without a newline')\nsys.stdout.flush()\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.setattr(torch_facts, "_proc", [])
    try:
        assert torch_facts.ask({"facts": True})["devices"].keys() == {"cuda", "mps", "xpu"}
    finally:
        torch_facts.stop()


def test_a_name_whose_lookup_fails_is_reported_with_the_error(tmp_path, monkeypatch):
    (tmp_path / "raises_on_import.py").write_text("raise ValueError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert torch_facts._first_missing_or_why(["raises_on_import", "x"]) == (
        "raises_on_import.x (looking it up raised ValueError: broken on purpose)"
    )
    assert torch_facts._first_missing_or_why(["json", "decoder", "nope"]) == "json.decoder.nope"
