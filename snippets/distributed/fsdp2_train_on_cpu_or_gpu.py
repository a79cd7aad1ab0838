"""Shard a small model with FSDP2 (fully_shard) and train it on CPUs or GPUs.

Launch it with torchrun, one process per GPU (or two processes on a CPU-only machine):

    torchrun --standalone --nproc-per-node=2 fsdp2_train_on_cpu_or_gpu.py --epochs 2
"""

import argparse
import gc
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
)
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="FSDP2 training on CPU or GPU")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16, help="per process")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--checkpoint", default="fsdp2_model.pt")
    return parser.parse_args()


def make_dataset() -> TensorDataset:
    g = torch.Generator().manual_seed(0)  # every rank builds the same dataset
    x = torch.randn(512, 8, generator=g)
    y = x @ torch.randn(8, 1, generator=g) + 0.1 * torch.randn(512, 1, generator=g)
    return TensorDataset(x, y)


def full_loss(model: nn.Module, dataset: TensorDataset, device: torch.device) -> float:
    # Every rank must run the forward: it all-gathers the parameters.
    x, y = (t.to(device) for t in dataset.tensors)
    with torch.no_grad():
        return nn.functional.mse_loss(model(x), y).item()


def train(args: argparse.Namespace, device: torch.device) -> None:
    rank, world_size = dist.get_rank(), dist.get_world_size()
    dataset = make_dataset()
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)
    ).to(device)
    full_numel = sum(p.numel() for p in model.parameters())
    # A 1-D mesh over all ranks: every parameter is split into world_size shards.
    mesh = init_device_mesh(device.type, (world_size,))
    # Shard each layer, then the root: parameters are gathered one layer at a time.
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loss_fn = nn.MSELoss()
    loss_before = full_loss(model, dataset, device)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = loss_fn(model(x), y)
            loss.backward()  # reduce-scatter: each rank keeps its gradient shard
            optimizer.step()  # updates only this rank's shard
            optimizer.zero_grad()
    loss_after = full_loss(model, dataset, device)

    sharded = all(
        isinstance(p, DTensor) and p.placements[0].is_shard(dim=0)
        for p in model.parameters()
    )
    # Each rank stores a slice: the slices of all ranks add up to the model.
    local_numel = torch.tensor(
        sum(p.to_local().numel() for p in model.parameters()), device=device
    )
    dist.all_reduce(local_numel)
    state = optimizer.state[next(iter(model.parameters()))]
    optimizer_sharded = isinstance(state["exp_avg"], DTensor)

    # Collective: every rank takes part, rank 0 receives full tensors on the CPU.
    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    full_state = get_model_state_dict(model, options=options)
    if rank == 0:
        torch.save(full_state, args.checkpoint)
        # fully_shard changes the model's class in place instead of wrapping it.
        print("still an nn.Sequential:", isinstance(model, nn.Sequential))
        print("parameters are sharded DTensors:", sharded)
        print("shards add up to the full model:", local_numel.item() == full_numel)
        print("optimizer state is sharded too:", optimizer_sharded)
        print("full state dict keys:", list(full_state))
        print("loss went down:", loss_after < loss_before)


def main() -> None:
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    try:
        train(args, device)
        # The sharded model and its optimizer sit in reference cycles, so returning
        # from train() does not free them: collect them now, while the process
        # group exists, instead of during interpreter shutdown.
        gc.collect()
        dist.barrier()  # no rank shuts down while another is still working
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
