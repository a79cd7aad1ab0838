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
# # 五分钟设备之旅
#
# 这个笔记本在构建站点时执行，你看到的输出就是它在构建机器上的真实输出（CI 里是 CPU）。
# 本机有 GPU 时，同样的代码会在 GPU 上运行。

# %% [markdown]
# ## 1. 选设备 { #pick-a-device }
#
# `torch.accelerator` 找到当前的加速器（CUDA、MPS、XPU……）；没有加速器时退回 CPU。

# %%
import torch

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
print("running on:", device.type)

# %% [markdown]
# ## 2. 直接在设备上创建张量 { #create-on-device }
#
# 传入 `device=`，张量一开始就建在目标设备上，省掉一次先在 CPU 上创建再拷贝的开销。

# %%
x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
print(x.device.type, x.dtype, tuple(x.shape))

# %% [markdown]
# ## 3. 移动张量：需要时才拷贝 { #move-a-tensor }
#
# `Tensor.to` 在设备和 dtype 都不变时**直接返回原对象**，不会拷贝；需要移动时返回一个新张量，原张量保持不变。

# %%
cpu_tensor = torch.ones(3)
moved = cpu_tensor.to(device)
same = cpu_tensor.to("cpu")
print("to('cpu') on a CPU tensor returns the same object:", same is cpu_tensor)
print("moved lives on:", moved.device.type)

# %% [markdown]
# ## 4. 移动模型：原地进行 { #move-a-module }
#
# 和张量不同，`Module.to` 原地移动所有参数和缓冲区，并返回模型本身。

# %%
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
returned = model.to(device)
print("Module.to returns the module itself:", returned is model)
print("weight device:", model.weight.device.type)

# %% [markdown]
# ## 5. 在设备上计算 { #compute }
#
# 输入和参数在同一设备上，前向计算就在那个设备上完成。推理时用 `torch.no_grad()` 关闭梯度记录。

# %%
with torch.no_grad():
    y = model(x)
print(y.shape, y.device.type)

# %% [markdown]
# ## 6. 取回结果 { #bring-it-back }
#
# NumPy 只认识主机内存：先用 `.cpu()` 拷回主机，再 `.numpy()`。在 CUDA 上，这一步还会等待 GPU 算完（一个同步点）。

# %%
result = y.cpu().numpy()
print(type(result).__name__, result.shape, result.dtype)
