"""What each spawned DataLoader worker costs: a new interpreter that imports torch.

With ``spawn`` (the default on Windows and macOS) every worker starts Python
again, imports torch and this file, and only then loads samples. Each dataset
item reports the worker's process id and the peak memory of that process.
"""

import os
import resource
import sys

from torch.utils.data import DataLoader, Dataset


def peak_memory_mb():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes / KiB


class WorkerReport(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return os.getpid(), "torch" in sys.modules, peak_memory_mb()


def main():
    main_mb = peak_memory_mb()  # this process, torch imported
    loader = DataLoader(
        WorkerReport(),
        batch_size=None,  # one report per item, no collation
        num_workers=2,
        multiprocessing_context="spawn",  # the default on Windows and macOS
    )
    reports = {pid: (has_torch, mb) for pid, has_torch, mb in loader}
    assert len(reports) == 2 and os.getpid() not in reports
    assert all(has_torch for has_torch, _ in reports.values())
    workers_mb = [mb for _, mb in reports.values()]
    rounded = [round(mb) for mb in workers_mb]
    # the sizes depend on the machine: on stderr, beside the checked output
    print(f"peak memory: main {main_mb:.0f} MB, workers {rounded} MB", file=sys.stderr)
    assert min(workers_mb) > 0.5 * main_mb, (workers_mb, main_mb)
    print("2 workers, each a new process that imported torch")


if __name__ == "__main__":
    main()
