"""Train a small model with DistributedDataParallel on CPUs (gloo) or GPUs (nccl).

Launch it with torchrun, one process per GPU (or two processes on a CPU-only machine):

    torchrun --standalone --nproc-per-node=2 ddp_train_on_cpu_or_gpu.py --epochs 2
"""

import argparse
import contextlib
import os
import sys

import torch
import torch.distributed as dist

# Before init_process_group: imported later (the first DDP(...) does it), its functions'
# default argument group=group.WORLD keeps the group alive after destroy_process_group()
import torch.distributed.nn  # noqa: F401
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="DDP training on CPU or GPU")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16, help="per process")
    parser.add_argument("--accum-steps", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument(
        "--checkpoint", default="ddp_model.pt", help="multi-node: on shared storage"
    )
    return parser.parse_args()


def make_dataset() -> TensorDataset:
    g = torch.Generator().manual_seed(0)  # every rank builds the same dataset
    x = torch.randn(512, 8, generator=g)
    y = x @ torch.randn(8, 1, generator=g) + 0.1 * torch.randn(512, 1, generator=g)
    return TensorDataset(x, y)


def full_loss(model: nn.Module, dataset: TensorDataset, device: torch.device) -> float:
    x, y = (t.to(device) for t in dataset.tensors)
    with torch.no_grad():
        return nn.functional.mse_loss(model(x), y).item()


def train(args: argparse.Namespace, device: torch.device) -> None:
    rank, world_size = dist.get_rank(), dist.get_world_size()
    dataset = make_dataset()
    # Each rank gets its own 1/world_size of the samples, reshuffled every epoch.
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).to(device)
    loss_before = full_loss(model, dataset, device)
    # DDP copies rank 0's parameters and buffers to every other rank here.
    model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.MSELoss()

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            last = (step + 1) % args.accum_steps == 0 or step + 1 == len(loader)
            # A trailing group can be shorter: divide by its real size.
            group_start = step - step % args.accum_steps
            group_size = min(args.accum_steps, len(loader) - group_start)
            # no_sync(): keep the gradients local; all-reduce on the last micro-batch
            with contextlib.nullcontext() if last else model.no_sync():
                loss = loss_fn(model(x), y) / group_size
                loss.backward()
            if last:
                optimizer.step()
                optimizer.zero_grad()
        if rank == 0:  # progress goes to stderr, the results below to stdout
            epoch_loss = full_loss(model.module, dataset, device)
            print(f"epoch {epoch}: loss {epoch_loss:.4f}", file=sys.stderr)

    # Every rank applied the same averaged gradients: compare the parameters.
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(world_size)]
    dist.all_gather(gathered, flat)
    identical = all(torch.equal(t, gathered[0]) for t in gathered)

    if rank == 0:
        # model.module is the inner model: its keys have no "module." prefix
        torch.save(model.module.state_dict(), args.checkpoint)
    dist.barrier()  # nobody reads the file before rank 0 has written it
    state = torch.load(args.checkpoint, map_location=device, weights_only=True)
    same = all(torch.equal(state[k], v) for k, v in model.module.state_dict().items())
    matches = torch.tensor(int(same), device=device)
    dist.all_reduce(matches, op=dist.ReduceOp.MIN)  # 1 only if 1 on every rank

    if rank == 0:
        print("parameters identical on all ranks:", identical)
        print("checkpoint matches on all ranks:", bool(matches))
        print("loss went down:", full_loss(model.module, dataset, device) < loss_before)


def main() -> None:
    args = parse_args()
    # torchrun starts one process per --nproc-per-node and sets these variables.
    local_rank = int(os.environ["LOCAL_RANK"])
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])

    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)  # before any other CUDA call
        device = torch.device("cuda", local_rank)
        dist.init_process_group(
            "nccl", rank=rank, world_size=world_size, device_id=device
        )
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo", rank=rank, world_size=world_size)
    try:
        train(args, device)
        dist.barrier()  # no rank shuts down while another is still working
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
