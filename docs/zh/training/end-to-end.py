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
# # 端到端训练一个手写数字分类器
#
# 这个笔记本把训练相关的几页串起来：
# 用 scikit-learn 自带的手写数字数据集（1797 张 8 × 8 像素的图像，无需下载）训练一个小网络，
# 用到 DataLoader、AdamW、学习率调度、设备支持时的混合精度、基于 scikit-learn 的评估，
# 以及一个保存后再用 `weights_only=True` 重新加载的检查点。
#
# 它在构建站点时执行，下面的输出都是构建机器 CPU 上的真实结果。本机有 GPU 时，
# 同样的代码会在 GPU 上运行。
#
# 运行它需要 torch、numpy 和 scikit-learn（`pip install scikit-learn`；Colab 已经装好）。

# %% [markdown]
# ## 1. 设备与随机种子 { #setup }
#
# 有加速器就用加速器，否则用 CPU。一个种子让权重初始化和 dropout 掩码可以复现；数据打乱另有一个设了种子的生成器（见第 2 节）。
# 在 CPU 上只用一个线程：网络这么小，把每个运算拆给多个线程，线程同步的开销比省下的时间还多，
# 在繁忙的机器（比如 CI 运行器）上更是如此。

# %%
import tempfile
import time
from pathlib import Path

import torch
from sklearn.datasets import load_digits
from sklearn.metrics import classification_report, confusion_matrix
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
if device.type == "cpu":
    torch.set_num_threads(1)
print("device:", device.type)

# %% [markdown]
# ## 2. 数据 { #data }
#
# 分层划分让十个类别在训练集和测试集里的比例保持一致。归一化用的均值和标准差只从训练集计算，
# 并且对整个张量归一化一次，而不是逐个样本处理。加载器返回 CPU 张量；
# 打乱顺序用单独设了种子的生成器，只有存在可以拷贝过去的加速器时才使用锁页内存。

# %%
digits = load_digits()
x = torch.tensor(digits.data, dtype=torch.float32)
y = torch.tensor(digits.target, dtype=torch.int64)
train_idx, test_idx = train_test_split(
    range(len(y)), test_size=0.25, stratify=digits.target, random_state=0
)
x_train, y_train = x[train_idx], y[train_idx]
x_test, y_test = x[test_idx], y[test_idx]

mean = x_train.mean(dim=0)
std = x_train.std(dim=0).clamp_min(1e-6)  # 边缘有些像素总是 0
x_train = (x_train - mean) / std
x_test = (x_test - mean) / std

pin = torch.accelerator.is_available()
train_loader = DataLoader(
    TensorDataset(x_train, y_train),
    batch_size=64,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
    pin_memory=pin,
)
test_loader = DataLoader(TensorDataset(x_test, y_test), batch_size=256, pin_memory=pin)
print("train:", tuple(x_train.shape), "test:", tuple(x_test.shape))
print("batches per epoch:", len(train_loader))

# %% [markdown]
# ## 3. 模型、优化器与学习率调度 { #model }
#
# 一个带 dropout 的两层感知机。`OneCycleLR` 按批次定义：传给它 epoch 数和每个 epoch 的批次数，
# 每次 `optimizer.step()` 之后都调用 `scheduler.step()`。

# %%
epochs = 20

def make_model() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(64, 128),
        torch.nn.ReLU(),
        torch.nn.Dropout(0.1),
        torch.nn.Linear(128, 10),
    )


model = make_model().to(device)
loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=1e-2, epochs=epochs, steps_per_epoch=len(train_loader)
)

# %% [markdown]
# ## 4. 混合精度 { #amp }
#
# CPU 和从 Ampere 开始的 GPU 上用 `bfloat16` autocast，更老的 GPU 上用 `float16` 加 `GradScaler`
# （见[混合精度](../amp/#recipe)）。`bfloat16` 不需要 scaler，所以此时禁用它，训练循环保持不变。

# %%
before_ampere = device.type == "cuda" and torch.cuda.get_device_capability() < (8, 0)
amp_dtype = torch.float16 if before_ampere else torch.bfloat16
scaler = torch.amp.GradScaler(device.type, enabled=amp_dtype == torch.float16)
print("autocast dtype:", amp_dtype, "| gradient scaling:", scaler.is_enabled())

# %% [markdown]
# ## 5. 评估函数 { #evaluate }
#
# `model.eval()` 关闭 dropout，`torch.inference_mode()` 让自动求导不再记录。
# 预测结果在所有批次上收集，最后一次性移到 CPU。


# %%
def predict(model, loader):
    was_training = model.training
    model.eval()
    preds = []
    with torch.inference_mode(), torch.amp.autocast(device.type, dtype=amp_dtype):
        for xb, _ in loader:
            preds.append(model(xb.to(device, non_blocking=True)).argmax(dim=1))
    model.train(was_training)
    return torch.cat(preds).cpu()


def accuracy(model, loader, labels):
    return (predict(model, loader) == labels).float().mean().item()


# %% [markdown]
# ## 6. 训练 { #train }
#
# 每个批次移到设备上，前向传播和损失在 autocast 下计算，梯度先反缩放再裁剪，
# 然后优化器和学习率调度器各走一步。

# %%
start = time.perf_counter()
for epoch in range(epochs):
    model.train()
    total_loss = 0.0
    for xb, yb in train_loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast(device.type, dtype=amp_dtype):
            loss = loss_fn(model(xb), yb)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total_loss += loss.item() * len(yb)
    if epoch % 4 == 3 or epoch == 0:
        print(
            f"epoch {epoch + 1:2d}  loss {total_loss / len(x_train):.4f}  "
            f"lr {scheduler.get_last_lr()[0]:.2e}  "
            f"test accuracy {accuracy(model, test_loader, y_test):.3f}"
        )
print(f"training took {time.perf_counter() - start:.1f} s")

# %% [markdown]
# ## 7. 结果 { #results }
#
# 指标由 scikit-learn 在 CPU 数组上计算。混淆矩阵的第 *i* 行是真实数字，第 *j* 列是预测数字。
# 准确率低于 95 % 时，这个笔记本会执行失败。

# %%
preds = predict(model, test_loader)
test_accuracy = (preds == y_test).float().mean().item()
print(f"test accuracy: {test_accuracy:.3f}")
print(classification_report(y_test.numpy(), preds.numpy(), digits=3))
print(confusion_matrix(y_test.numpy(), preds.numpy()))
assert test_accuracy >= 0.95, test_accuracy

# %% [markdown]
# ## 8. 检查点：保存并重新加载 { #checkpoint }
#
# 检查点里只有状态字典和普通数值：模型、优化器、调度器、scaler、epoch，
# 以及使用模型时需要的归一化统计量。它用 `weights_only=True` 加载到新建的对象里，
# 加载到本机现有的设备上。重新加载的模型与训练好的模型预测完全一致。

# %%
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "digits.pt"
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "epoch": epochs,
            "mean": mean,
            "std": std,
        },
        path,
    )
    print(f"checkpoint: {path.stat().st_size / 1024:.0f} KiB")
    checkpoint = torch.load(path, map_location=device, weights_only=True)

restored = make_model().to(device)
restored.load_state_dict(checkpoint["model"])
assert torch.equal(checkpoint["mean"], mean) and checkpoint["epoch"] == epochs

restored_preds = predict(restored, test_loader)
assert torch.equal(restored_preds, preds)
print(f"restored model, test accuracy: {accuracy(restored, test_loader, y_test):.3f}")
