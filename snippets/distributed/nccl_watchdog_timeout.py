"""NCCL's watchdog catching a collective that does not finish in time, on one GPU.

    python nccl_watchdog_timeout.py

A group of one rank with a 2 s timeout. After a first all_reduce (which creates
the communicator), the second all_reduce is queued on the GPU behind
a kernel that keeps it busy for about ten seconds, so it cannot finish within the
timeout: the watchdog thread of ProcessGroupNCCL reports the timeout and takes the
process down, before the last line of this script runs. On several GPUs the wait
comes from a rank that has not called the collective yet; the report is the same.
"""

import datetime
import os
import time

import torch
import torch.distributed as dist

os.environ.setdefault("NCCL_SOCKET_IFNAME", "lo")  # one machine: the loopback interface
device = torch.device("cuda", 0)
torch.cuda.set_device(device)
dist.init_process_group(
    "nccl",
    store=dist.HashStore(),
    rank=0,
    world_size=1,
    timeout=datetime.timedelta(seconds=2),
)
x = torch.ones(1, device=device)
# The first collective creates the NCCL communicator; behind the busy kernel that
# call blocked until the kernel ended (torch 2.11, an H200), and the collective
# after it was on time. So one collective first, on an idle GPU.
dist.all_reduce(x)
torch.cuda.synchronize()
torch.cuda._sleep(20_000_000_000)  # GPU clock cycles: several seconds of work
dist.all_reduce(x)  # queued after the busy kernel; returns at once
time.sleep(60)  # the watchdog ends the process long before this
print("still running after 60 s: the watchdog did not end the process")
