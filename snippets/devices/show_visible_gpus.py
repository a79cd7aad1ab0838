"""Show which GPUs this process can use, numbered the way PyTorch numbers them."""

import os

import torch

setting = os.environ.get("CUDA_VISIBLE_DEVICES")
count = torch.cuda.device_count()
print(f"CUDA_VISIBLE_DEVICES={setting!r}")
print(f"GPUs visible to PyTorch: {count}")
for index in range(count):
    print(f"  cuda:{index} is {torch.cuda.get_device_name(index)}")
