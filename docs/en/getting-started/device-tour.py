# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A five-minute device tour
#
# This notebook is executed while the site is built: the outputs you see are the real outputs on the build
# machine (the CPU, in CI). With a GPU in your machine, the same code runs on the GPU.

# %% [markdown]
# ## 1. Pick a device { #pick-a-device }
#
# `torch.accelerator` finds the current accelerator (CUDA, MPS, XPU, …); without one, fall back to the CPU.

# %%
import torch

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
print("running on:", device.type)

# %% [markdown]
# ## 2. Create tensors on the device { #create-on-device }
#
# Pass `device=` and the tensor is created where it will be used, saving a copy from the CPU.

# %%
x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
print(x.device.type, x.dtype, tuple(x.shape))

# %% [markdown]
# ## 3. Move a tensor: a copy only when needed { #move-a-tensor }
#
# `Tensor.to` **returns the very same object** when neither device nor dtype changes; when something moves it returns a new tensor and leaves the original alone.

# %%
cpu_tensor = torch.ones(3)
moved = cpu_tensor.to(device)
same = cpu_tensor.to("cpu")
print("to('cpu') on a CPU tensor returns the same object:", same is cpu_tensor)
print("moved lives on:", moved.device.type)

# %% [markdown]
# ## 4. Move a model: in place { #move-a-module }
#
# Unlike a tensor, `Module.to` moves every parameter and buffer in place and returns the module itself.

# %%
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
returned = model.to(device)
print("Module.to returns the module itself:", returned is model)
print("weight device:", model.weight.device.type)

# %% [markdown]
# ## 5. Compute on the device { #compute }
#
# With inputs and parameters on the same device, the forward pass runs there. For inference, `torch.no_grad()` stops recording gradients.

# %%
with torch.no_grad():
    y = model(x)
print(y.shape, y.device.type)

# %% [markdown]
# ## 6. Bring the result back { #bring-it-back }
#
# NumPy only knows host memory: copy to the host with `.cpu()` first, then call `.numpy()`. On CUDA this also waits for the GPU to finish (a synchronization point).

# %%
result = y.cpu().numpy()
print(type(result).__name__, result.shape, result.dtype)
