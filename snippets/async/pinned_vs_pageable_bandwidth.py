"""Host <-> GPU copy bandwidth: pageable vs pinned memory, blocking vs non_blocking.

Needs a CUDA device. Prints GB/s (1 GB = 10**9 bytes) for each case and, when
nvidia-smi is available, the theoretical limit of the GPU's PCIe link.
"""

import shutil
import subprocess
import time

import torch
from torch.utils import benchmark

# Per lane and direction, after line encoding: GT/s * payload bits / line bits / 8.
PCIE_GB_PER_S_PER_LANE = {
    1: 2.5 * 8 / 10 / 8,
    2: 5.0 * 8 / 10 / 8,
    3: 8.0 * 128 / 130 / 8,
    4: 16.0 * 128 / 130 / 8,
    5: 32.0 * 128 / 130 / 8,
    6: 64.0 * 242 / 256 / 8,
}


def pcie_link():
    """(generation, lanes) of the current GPU's PCIe link, or None if unknown."""
    if shutil.which("nvidia-smi") is None:
        return None
    done = subprocess.run(
        [
            "nvidia-smi",
            "--query-gpu=uuid,pcie.link.gen.max,pcie.link.width.max",
            "--format=csv,noheader,nounits",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [
        [field.strip() for field in line.split(",")]
        for line in done.stdout.splitlines()
        if line.count(",") == 2
    ]
    uuid = str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid)
    mine = [r for r in rows if r[0].lower().removeprefix("gpu-") == uuid.lower()]
    if not mine and len(rows) == 1:
        mine = rows
    if not mine or not (mine[0][1].isdigit() and mine[0][2].isdigit()):
        return None
    return int(mine[0][1]), int(mine[0][2])


def gb_per_s(stmt, nbytes, **tensors):
    # Timer synchronizes the GPU before every clock reading, so queued
    # non_blocking copies are inside the measurement.
    m = benchmark.Timer(stmt=stmt, globals=tensors).blocked_autorange(min_run_time=0.5)
    return nbytes / m.median / 1e9


device = torch.device("cuda")
n = 64 * 1024 * 1024  # float32 elements: 256 MiB
nbytes = n * 4
pageable = torch.randn(n)
pinned = torch.randn(n).pin_memory()
on_gpu = torch.empty(n, device=device)
tensors = dict(pageable=pageable, pinned=pinned, on_gpu=on_gpu)

cases = [
    ("host -> GPU", "pageable", "False", "on_gpu.copy_(pageable)"),
    ("host -> GPU", "pageable", "True", "on_gpu.copy_(pageable, non_blocking=True)"),
    ("host -> GPU", "pinned", "False", "on_gpu.copy_(pinned)"),
    ("host -> GPU", "pinned", "True", "on_gpu.copy_(pinned, non_blocking=True)"),
    (
        "host -> GPU",
        "pin per copy",
        "True",
        "on_gpu.copy_(pageable.pin_memory(), non_blocking=True)",
    ),
    ("GPU -> host", "pageable", "False", "pageable.copy_(on_gpu)"),
    ("GPU -> host", "pageable", "True", "pageable.copy_(on_gpu, non_blocking=True)"),
    ("GPU -> host", "pinned", "False", "pinned.copy_(on_gpu)"),
    ("GPU -> host", "pinned", "True", "pinned.copy_(on_gpu, non_blocking=True)"),
]
print(f"{'direction':<13}{'host memory':<14}{'non_blocking':<14}GB/s")
for direction, memory, non_blocking, stmt in cases:
    rate = gb_per_s(stmt, nbytes, **tensors)
    print(f"{direction:<13}{memory:<14}{non_blocking:<14}{rate:.1f}")

# From pinned memory with non_blocking=True the call returns before the copy ends.
# The fastest of five tries: a busy host or GPU can only make a try slower.
returned, finished = float("inf"), float("inf")
for _ in range(5):
    torch.cuda.synchronize()
    start = time.perf_counter()
    on_gpu.copy_(pinned, non_blocking=True)
    returned = min(returned, time.perf_counter() - start)
    torch.cuda.synchronize()
    finished = min(finished, time.perf_counter() - start)
assert returned < finished / 2
print(f"pinned non_blocking copy: call returned after {returned * 1e3:.3f} ms,")
print(f"copy finished after {finished * 1e3:.1f} ms")

link = pcie_link()
if link is None:
    print("PCIe link: unknown (no nvidia-smi, or the GPU is not on PCIe)")
else:
    gen, lanes = link
    limit = PCIE_GB_PER_S_PER_LANE.get(gen, float("nan")) * lanes
    print(f"PCIe link: gen {gen} x{lanes}, limit {limit:.1f} GB/s per direction")
