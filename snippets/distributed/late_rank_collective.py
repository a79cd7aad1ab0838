"""A rank that reaches a collective late, on CPU with gloo.

    torchrun --standalone --nproc-per-node=2 late_rank_collective.py TIMEOUT_SECONDS

Rank 1 calls all_reduce 5 s after rank 0, in a process group whose timeout is
TIMEOUT_SECONDS. Each rank writes what happened to rank<N>.txt.

The group with the short timeout is made after the default one: a process group's
timeout also bounds its set-up, and on a busy machine one rank can start (import
torch) more than 2 s after the other.
"""

import datetime
import sys
import time

import torch
import torch.distributed as dist

timeout = datetime.timedelta(seconds=float(sys.argv[1]))
# the default timeout: both ranks get here, however late one of them starts
dist.init_process_group("gloo")
group = dist.new_group(timeout=timeout)  # the collective below runs in this group
rank = dist.get_rank()
if rank == 1:
    time.sleep(5)  # elsewhere: a longer step, a branch that rank 0 did not take
x = torch.ones(1)
try:
    dist.all_reduce(x, group=group)
    result = f"all_reduce gave {x.item()}"
except RuntimeError as e:
    # gloo starts its message with its source location: "[.../unbound_buffer.cc:78] "
    message = str(e).split("] ", 1)[-1]
    result = f"{type(e).__name__}: {message.split(' [')[0]}"  # drop the peer address
with open(f"rank{rank}.txt", "w") as f:
    print(f"rank {rank}: {result}", file=f)
dist.destroy_process_group()
