"""A DataLoader with worker processes and no ``__main__`` guard: fails under spawn.

Windows and macOS start DataLoader workers with ``spawn``; ``multiprocessing_context``
forces the same here. Each worker imports this file, runs the loop below again and
tries to start workers of its own before it has finished starting.
"""

import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.arange(8.0))
loader = DataLoader(
    dataset, batch_size=4, num_workers=2, multiprocessing_context="spawn"
)
print("sum:", sum(batch.sum().item() for (batch,) in loader))
