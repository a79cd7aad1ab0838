"""Feed an embedding a token id it does not have, then multiply on the GPU.

The embedding's kernel fails, but the error is reported by a later CUDA call.
Run it in a process of its own: after the failure the CUDA context is unusable.
"""

import torch

device = torch.device("cuda")
embedding = torch.nn.Embedding(10, 8).to(device)  # token ids 0 to 9
linear = torch.nn.Linear(8, 8).to(device)
ids = torch.tensor([1, 2, 10], device=device)  # id 10 does not exist
a = torch.randn(4096, 4096, device=device)
for _ in range(10):
    a = torch.tanh(a @ a)  # queue work, so that the embedding kernel runs later

h = embedding(ids)
print("embedding returned", flush=True)
out = linear(h)  # a cuBLAS matrix product
print(out.sum().item())
