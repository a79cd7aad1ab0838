"""Trigger a device-side assert with a class index that does not exist.

Run it in a process of its own: after a device-side assert the CUDA context is
unusable, so every later CUDA call in the same process fails too.
"""

import torch
import torch.nn.functional as F

device = torch.device("cuda")
logits = torch.randn(4, 5, device=device)  # 4 samples, 5 classes: 0 to 4
target = torch.tensor([0, 1, 2, 5], device=device)  # class 5 does not exist
a = torch.randn(4096, 4096, device=device)
for _ in range(10):
    a = torch.tanh(a @ a)  # queue work, so that the loss kernel runs later

loss = F.cross_entropy(logits, target)
print("cross_entropy returned", flush=True)
try:
    print(loss.item())
finally:
    try:
        torch.ones(1, device=device).item()
    except RuntimeError:
        print("the CUDA context is unusable now", flush=True)
