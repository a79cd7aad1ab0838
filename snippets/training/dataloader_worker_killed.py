"""A DataLoader worker killed by a signal, as the out-of-memory killer does it.

The worker sends itself SIGKILL, the signal that Linux's OOM killer sends. The main
process reports the signal first, then that the worker exited unexpectedly.
"""

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset


class KilledDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        os.kill(os.getpid(), signal.SIGKILL)  # stands in for the OOM killer
        return torch.tensor(index)


def main():
    loader = DataLoader(KilledDataset(), batch_size=2, num_workers=1)
    try:
        next(iter(loader))
    except RuntimeError as e:
        print(e.__cause__)  # raised by the SIGCHLD handler that DataLoader installs
        print(e)
    else:
        raise AssertionError("expected a RuntimeError")


if __name__ == "__main__":
    main()
