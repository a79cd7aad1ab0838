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
# # Train a digit classifier end to end
#
# This notebook puts the training pages together: it trains a small network on the handwritten
# digits bundled with scikit-learn (1797 images of 8 × 8 pixels, no download), with a DataLoader,
# AdamW, a learning-rate schedule, mixed precision where the device supports it, an evaluation with
# scikit-learn, and a checkpoint that is saved and loaded again with `weights_only=True`.
#
# It is executed while the site is built: the outputs below are real (from the build machine's
# CPU). On a machine with a GPU the same code runs on the GPU.
#
# It needs torch, numpy and scikit-learn (`pip install scikit-learn`; Colab has it).

# %% [markdown]
# ## 1. Device and seed { #setup }
#
# The accelerator if there is one, the CPU otherwise. One seed makes the weight initialisation and
# the dropout masks repeatable; the shuffling has its own seeded generator (section 2). On the
# CPU, one thread: for a network this small, splitting each operation over several threads costs
# more in synchronisation than it saves, and on a busy machine (a CI runner) far more.

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
# ## 2. Data { #data }
#
# A stratified split keeps the ten classes in the same proportions in both parts. The mean and
# standard deviation for normalisation come from the training part only, and the whole tensor is
# normalised once, not sample by sample. The loaders return CPU tensors; the shuffling has its own
# seeded generator, and memory is pinned only when there is an accelerator to copy to.

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
std = x_train.std(dim=0).clamp_min(1e-6)  # some border pixels are always 0
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
# ## 3. Model, optimizer, schedule { #model }
#
# A two-layer perceptron with dropout. `OneCycleLR` is defined over batches: it gets the number of
# epochs and of batches per epoch, and `scheduler.step()` follows every `optimizer.step()`.

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
# ## 4. Mixed precision { #amp }
#
# `bfloat16` autocast on the CPU and on GPUs from Ampere on, `float16` with a `GradScaler` on older
# GPUs ([mixed precision](../amp/#recipe)). The scaler is disabled for `bfloat16`, where it is not
# needed, and the training loop stays the same.

# %%
before_ampere = device.type == "cuda" and torch.cuda.get_device_capability() < (8, 0)
amp_dtype = torch.float16 if before_ampere else torch.bfloat16
scaler = torch.amp.GradScaler(device.type, enabled=amp_dtype == torch.float16)
print("autocast dtype:", amp_dtype, "| gradient scaling:", scaler.is_enabled())

# %% [markdown]
# ## 5. Evaluation function { #evaluate }
#
# `model.eval()` switches dropout off, `torch.inference_mode()` stops autograd from recording.
# Predictions are gathered over every batch and moved to the CPU once, at the end.


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
# ## 6. Training { #train }
#
# Each batch moves to the device, the forward pass and the loss run under autocast, the gradients
# are unscaled before clipping, then the optimizer and the schedule take one step.

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
# ## 7. Results { #results }
#
# The metrics come from scikit-learn, on CPU arrays. In the confusion matrix, row *i* is the true
# digit and column *j* the predicted one. The notebook fails if the accuracy is below 95 %.

# %%
preds = predict(model, test_loader)
test_accuracy = (preds == y_test).float().mean().item()
print(f"test accuracy: {test_accuracy:.3f}")
print(classification_report(y_test.numpy(), preds.numpy(), digits=3))
print(confusion_matrix(y_test.numpy(), preds.numpy()))
assert test_accuracy >= 0.95, test_accuracy

# %% [markdown]
# ## 8. Checkpoint: save and load again { #checkpoint }
#
# The checkpoint holds state dicts and plain numbers only: the model, the optimizer, the scheduler,
# the scaler, the epoch, and the normalisation statistics that a user of the model needs. It loads
# with `weights_only=True` into freshly built objects, on whatever device this machine has. The
# reloaded model predicts exactly what the trained one does.

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
