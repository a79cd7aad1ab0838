"""What the pytest process needs to know about torch, asked of a process of its own.

The pytest process needs a few facts about the installed torch: its version and
build, the CPU capability, which devices it can use (for the reuse key,
``census.environment_fingerprint``, for skipping device-only blocks, for the
census's machine), and whether the ``torch.…`` names of skipped device-only
blocks exist (``devguide.pytest_plugin.apicheck``). Importing torch for that in the pytest
process cost a second of CPU beside the block runner's own import, and about 0.6 s
more when the process exits (torch's teardown), on every run of a page: here a
small process imports torch, answers, and exits without that teardown. It starts
when pytest starts (``launch``, from the plugin), so torch is imported while pytest
collects.

Protocol: one JSON request per line on stdin, one JSON reply per line on stdout,
after ``REPLY`` (torch's own prints go to stderr).
``{"facts": true}`` → the facts; ``{"missing": [["torch", "cuda", "Event"], …]}`` →
for each path, the first prefix that torch lacks, or null. Devices are checked
here, never in the block runner: ``torch.cuda.is_available()`` initialises the
CUDA driver, and the block runner forks its blocks.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import json
import os
import signal
import subprocess
import sys

_proc: list[subprocess.Popen] = []
REPLY = "devguide.census.torch_facts reply: "


def launch() -> None:
    """Start the process without waiting for it (nothing when it runs already)."""
    if _proc and _proc[0].poll() is None:
        return
    _proc[:] = [subprocess.Popen(
        [sys.executable, "-m", "devguide.census.torch_facts"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )]
    atexit.register(stop)


def stop() -> None:
    if _proc and _proc[0].poll() is None:
        assert _proc[0].stdin is not None  # started with stdin=PIPE
        _proc[0].stdin.close()  # it ends when its input ends
        try:
            _proc[0].wait(10)
        except subprocess.TimeoutExpired:
            _proc[0].kill()
    _proc.clear()


def ask(request: dict) -> dict:
    launch()
    proc = _proc[0]
    assert proc.stdin is not None and proc.stdout is not None  # started with PIPEs
    try:
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        # main() sends what torch prints to stderr; what was printed before (a
        # sitecustomize, say) is skipped: a reply is a line that starts with REPLY
        while line := proc.stdout.readline():
            if line.startswith(REPLY):
                return json.loads(line.removeprefix(REPLY))
    except (BrokenPipeError, json.JSONDecodeError):
        pass
    stop()
    raise RuntimeError(
        f"{sys.executable} -m devguide.census.torch_facts, which imports torch to tell the harness its version "
        "and devices, ended without answering: its error is above. Check that "
        f"`{sys.executable} -c 'import torch'` works."
    )


@functools.lru_cache(maxsize=1)
def facts() -> dict:
    """torch's version, git version, CUDA version, CPU capability, and each device kind's availability."""
    return ask({"facts": True})


def first_missing(paths: list[list[str]]) -> list[str | None]:
    """For each ``torch.…`` attribute path, the first prefix the installed torch lacks, or None."""
    return ask({"missing": paths})["missing"] if paths else []


# --------------------------------------------------------------------------- the process


def _first_missing(path: list[str]) -> str | None:
    """The first prefix of an attribute path that the installed torch lacks
    (submodules imported as needed), or None when the whole path resolves."""
    obj = importlib.import_module(path[0])
    for i, part in enumerate(path[1:], 1):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        if isinstance(obj, type(sys)):
            try:
                obj = importlib.import_module(".".join(path[: i + 1]))
                continue
            except ImportError:
                pass
        return ".".join(path[: i + 1])
    return None


def _first_missing_or_why(path: list[str]) -> str | None:
    """_first_missing; a path whose import fails otherwise than with ImportError is
    reported with the error (the process goes on answering)."""
    try:
        return _first_missing(path)
    except Exception as e:  # noqa: BLE001 - any error of torch's own import code
        return f"{'.'.join(path)} (looking it up raised {type(e).__name__}: {e})"


def _facts() -> dict:
    import torch

    devices = {  # the device marks (devguide.source.marks.DEVICE_MARKS); any torch 2.x
        "cuda": torch.cuda.is_available(),
        "mps": torch.backends.mps.is_available(),
        "xpu": hasattr(torch, "xpu") and torch.xpu.is_available(),
    }
    info: dict = {
        "torch": torch.__version__,
        "git_version": torch.version.git_version,
        "cuda": torch.version.cuda,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "devices": devices,
    }
    if devices.get("cuda"):
        info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return info


def main() -> None:
    # The replies get stdout to themselves: whatever else writes to it (torch, a
    # submodule imported for the API check) goes to stderr instead.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops pytest; this ends with its input
    import torch  # noqa: F401 - first, while pytest collects

    for line in sys.stdin:
        request = json.loads(line)
        if "facts" in request:
            reply = _facts()
        else:
            reply = {"missing": [_first_missing_or_why(path) for path in request["missing"]]}
        replies.write(f"\n{REPLY}{json.dumps(reply)}\n")  # on a line of its own, whatever came before
        replies.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # torch's teardown (about 0.6 s) is not needed


if __name__ == "__main__":
    main()
