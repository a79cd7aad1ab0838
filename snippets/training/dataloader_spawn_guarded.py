"""A DataLoader with spawned worker processes, written so that it works.

Everything a worker needs (the dataset class, here) is defined at module level;
everything that runs the program is inside ``main()``, called under the guard.
"""

import torch
from torch.utils.data import DataLoader, Dataset


class SquaresDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index * index)


def main():
    loader = DataLoader(
        SquaresDataset(), batch_size=4, num_workers=2, multiprocessing_context="spawn"
    )
    print("start method:", loader.multiprocessing_context.get_start_method())
    print("batches:", [batch.tolist() for batch in loader])


if __name__ == "__main__":
    main()
