"""Keeping every sample a DataLoader worker sent, with a low limit on open files.

With the ``file_descriptor`` sharing strategy (the default on Linux) each tensor a
worker sends stays backed by an open file descriptor for as long as the main
process keeps it. Two ways out: ``--copy`` keeps copies, so that the shared
tensors are freed; ``--file-system`` switches to the ``file_system`` strategy,
which names shared-memory files instead of keeping descriptors open.
"""

import resource
import sys

import torch
import torch.multiprocessing
from torch.utils.data import DataLoader, Dataset


class ManyTensors(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return [torch.full((1,), float(index)) for _ in range(8)]  # 8 tensors


def main():
    if "--file-system" in sys.argv:
        torch.multiprocessing.set_sharing_strategy("file_system")
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))  # a low `ulimit -n`
    loader = DataLoader(ManyTensors(), batch_size=None, num_workers=2)
    kept = []
    try:
        for sample in loader:
            if "--copy" in sys.argv:
                sample = [t.clone() for t in sample]  # lets the shared tensors go
            kept.append(sample)  # keeps every received tensor alive
    except RuntimeError as e:
        print(e)
    else:
        print("kept", len(kept), "samples")


if __name__ == "__main__":
    main()
