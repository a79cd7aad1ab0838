"""Does destroy_process_group() stop gloo's threads once a model was wrapped in DDP?

    python gloo_threads_after_destroy.py                 # as most scripts do
    python gloo_threads_after_destroy.py --import-first  # torch.distributed.nn first

Linux only: it counts the process's threads in /proc/self/task. A group of one
process (a HashStore, no launcher) is enough to show it.
"""

import argparse
import inspect
import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def gloo_threads() -> int:
    tasks = os.listdir("/proc/self/task")
    names = (open(f"/proc/self/task/{t}/comm").read() for t in tasks)
    return sum(name.startswith(("gloo", "pt_gloo")) for name in names)


parser = argparse.ArgumentParser()
parser.add_argument("--import-first", action="store_true")
if parser.parse_args().import_first:
    import torch.distributed.nn  # noqa: F401  (before init_process_group)

os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
before = "torch._dynamo" in sys.modules
model = DDP(nn.Linear(4, 1))  # the first DDP of a process imports torch._dynamo
model(torch.randn(2, 4)).sum().backward()
del model
dynamo_now = "torch._dynamo" in sys.modules
print("torch._dynamo imported by DDP(...):", not before and dynamo_now)
print("gloo threads before destroy_process_group():", gloo_threads())
# torch.distributed.nn.functional (imported by torch._dynamo) declares group=group.WORLD
# as the default argument of its functions, evaluated when the module is imported
functions = [
    f
    for f in vars(sys.modules["torch.distributed.nn.functional"]).values()
    if inspect.isfunction(f)
]
world = dist.group.WORLD
pinned = sum(any(d is world for d in f.__defaults__ or ()) for f in functions)
print("functions whose default argument is this group:", pinned)
del world  # this script's own reference
dist.destroy_process_group()
print("gloo threads after destroy_process_group():", gloo_threads())
# Drop those references (never do this in a script: import torch.distributed.nn
# first): the group is freed now, and its threads stop before the interpreter's
# shutdown, where a thread still releasing a tensor would abort the process.
for f in functions:
    if f.__defaults__:
        f.__defaults__ = tuple(
            None if isinstance(d, dist.ProcessGroup) else d for d in f.__defaults__
        )
print("gloo threads once nothing refers to the group:", gloo_threads())
