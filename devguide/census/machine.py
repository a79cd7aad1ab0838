"""The machine a run ran on, as the census records it and the reuse key counts it:
torch's facts (asked of torch in a process of its own, devguide.census.torch_facts), the
CPU, the operating system and the NVIDIA driver."""

from __future__ import annotations

import platform
from pathlib import Path

from devguide import paths
from devguide.census import torch_facts
from devguide.source.marks import DEVICE_MARKS


def gpu_driver() -> list[str]:
    """The NVIDIA driver's version and each GPU's information, as the kernel module
    reports them (no CUDA initialisation in the pytest process); empty elsewhere."""
    root = Path("/proc/driver/nvidia")
    try:
        files = [root / "version", *sorted(root.glob("gpus/*/information"))]
        return [f.read_text(encoding="utf-8", errors="replace") for f in files if f.is_file()]
    except OSError:
        return []


def machine() -> dict:
    torch = torch_facts.facts()  # asked of torch in a process of its own
    usable = [kind for kind in DEVICE_MARKS if torch["devices"][kind]]
    info = {
        "torch": torch["torch"],
        "python": platform.python_version(),
        # where the blocks that ran, ran: the usable accelerator (cuda, mps, xpu), or cpu
        "accelerator": usable[0] if usable else "cpu",
        # "pinned": the torch of pyproject.toml (make test); "any": the interpreter's own
        # (make test-cuda); "named": a second validated version (make test-torch)
        "torch_mode": paths.torch_mode(),
        "cpu_capability": torch["cpu_capability"],
        "cpu": cpu_model(),
        "os": os_name(),
    }
    if torch["devices"]["cuda"]:
        info["cuda"] = torch["cuda"]
        info["gpus"] = torch["gpus"]
    return info


def cpu_model() -> str:
    """The processor as the OS names it (``AMD EPYC 7B13``), for the validation report."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    if platform.system() == "Darwin":
        import subprocess

        try:
            done = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=10)
            if done.stdout.strip():
                return done.stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    return platform.processor() or platform.machine() or "unknown"


def os_name() -> str:
    """The operating system and architecture (``Debian GNU/Linux 12 (bookworm), x86_64``)."""
    name = ""
    if platform.system() == "Linux":
        try:
            release = platform.freedesktop_os_release()
            name = release.get("PRETTY_NAME") or release.get("NAME", "")
        except OSError:
            pass
        name = name or f"Linux {platform.release()}"
    elif platform.system() == "Darwin":
        name = f"macOS {platform.mac_ver()[0]}"
    else:
        name = f"{platform.system()} {platform.release()}".strip()
    return f"{name}, {platform.machine()}"
