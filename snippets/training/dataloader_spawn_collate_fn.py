"""A collate function that spawned DataLoader workers can find.

With ``spawn`` (Windows, macOS) and ``forkserver`` (Linux from Python 3.14) the
DataLoader pickles its ``collate_fn`` for each worker, by name: it must be defined
at module level, and extra arguments go in with ``functools.partial`` instead of a
lambda or a function defined inside another one.
"""

import functools

import torch
from torch.utils.data import DataLoader, TensorDataset


def scaled_collate(batch, scale):
    return torch.stack([x for (x,) in batch]) * scale


def main():
    loader = DataLoader(
        TensorDataset(torch.arange(8.0)),
        batch_size=4,
        num_workers=1,
        collate_fn=functools.partial(scaled_collate, scale=10.0),
        multiprocessing_context="spawn",
    )
    print("batches:", [batch.tolist() for batch in loader])


if __name__ == "__main__":
    main()
