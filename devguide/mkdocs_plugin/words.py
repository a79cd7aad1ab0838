"""The words of the validation report and of each page's validated line, in both languages.

``TEXT`` holds every sentence the report page (``devguide.mkdocs_plugin.report.validation_page``), the line under
each page title (``devguide.mkdocs_plugin.report.validated_line``) and the GPU outputs under CUDA blocks
(``devguide.mkdocs_plugin.report.gpu_outputs``) show, in Chinese and English, with ``{placeholders}``
for the numbers. ``REASONS_ZH`` translates the reasons of the harness's own marks
and of the excused blocks; ``plural`` and ``date`` put a number and a date into words.
"""

from __future__ import annotations

# The devices no CI machine has, as the report names them
DEVICE_NAMES = {"mps": "MPS", "xpu": "XPU"}

TEXT = {
    "zh": {
        # the line under each page title
        "cpu_ok": "{n} 个示例在 CPU 上通过（torch {torch}）",
        "cpu_some": "{n} 个示例中 {p} 个在 CPU 上通过、{u} 个改动后还没运行（torch {torch}）",
        "cpu_failed": "{n} 个示例中 {f} 个在 CPU 上失败（torch {torch}）",
        "cpu_failed_other": "torch {torch} 上 {f} 个失败",
        "cpu_none": "{n} 个示例还没有运行",
        "cells": "{n} 个代码单元在构建站点时运行",
        "acc_ok": "GPU 上运行过 {n}/{n} 个 {acc} 示例（torch {torch}）",
        "acc_some": "GPU 上运行过 {p}/{n} 个 {acc} 示例（torch {torch}）",
        "acc_none": "{n} 个 {acc} 示例还没在 GPU 上运行过",
        "acc_failed": "{n} 个 {acc} 示例中 {f} 个在 GPU 上失败（torch {torch}）",
        "gpu_tip": "{gpu}，torch {torch}，{date}",
        "device_unrun": "从未运行：{devices}",
        "device_count": "{n} 个 {device} 示例",
        "device_sep": "、",
        "device_tip": "CI 机器都没有这种设备",
        "device_ok": "{n} 个仅限 {device} 的示例已运行",
        "device_failed": "{n} 个仅限 {device} 的示例中 {f} 个失败",
        "line_label": "本页的验证结果，见验证报告",
        # under each wording of the error reference (hooks/error_pages.py)
        "printed_by": "含这句措辞的 torch 版本：{releases}（在 PyPI 上 {first} 到 {last} 各版本 macOS wheel 的字符串中查得，"
        "[怎么查的](index.md#wording-history)）",
        "list_sep": "、",
        # the report
        # the report's summary box
        "box_title": "一览",
        "box_of": "{k} / {n}",
        "box_cpu": "CPU 示例通过（torch {torch}）",
        "box_cpu_failed": "{f} 个失败，见下方“失败的代码块”。",
        "box_cpu_changed": "另有 {u} 个改动后还没运行。",
        "box_cuda": "CUDA 示例在 GPU 上运行过",
        "box_cuda_failed": "{f} 个失败。",
        "box_no_gpu": "还没有 GPU 运行的记录。",
        "box_devices": "MPS、XPU 示例从未运行",
        "device_tip_all": "CI 机器没有苹果芯片的 GPU（MPS），也没有 Intel 显卡（XPU）。",
        "machines": "结果来自哪里",
        "cpu_machine": "**CPU 运行**：{date} · {cpu} · {os} · Python {python} · torch {torch}。{source}",
        "other_run": "**另一次 CPU 运行**（`make test-torch`）：{date} · {cpu} · {os} · Python {python} · torch {torch}：{passed} 个代码块通过，{failed} 个失败，{skipped} 个跳过；另有 {changed} 个代码块在那次运行之后改过，不计入。{source}",
        "src_other": "来自 `build/validation-torch-{torch}.json`。",
        "gpu_machine": "**GPU 运行**：{date} · {gpus} · CUDA {cuda} · {host}Python {python} · torch {torch}。{source}",
        "src_test": "来自本次构建之前的测试运行（`build/validation.json`）。",
        "src_reused": "其中 {n} 个代码块自从更早的运行（最早在 {date}）通过以来没有任何变化（代码、期望输出、torch、依赖、snippets、测试框架、环境变量都相同），这次没有重跑，沿用当时的结果。",
        "src_recorded": "来自仓库中记录的最近一次运行（`.ci/cpu-run/summary.json`，`make test` 在结果变化时更新它）。",
        "src_gpu": "来自 GPU 工作流的最近一次运行（`build/gpu/`）。",
        "src_gpu_recorded": "来自仓库中记录的 GPU 运行（`.ci/gpu-run/`）。",
        "no_cpu": "**CPU 运行**：还没有记录。运行 `make test` 后重新构建即可看到每个代码块的结果。",
        "no_gpu": "**GPU 运行**：还没有记录，CUDA 示例都尚未在 GPU 上运行。",
        "totals": "本语言的页面共有 {n} 个在 CPU 上运行的示例：{p} 个通过，{f} 个失败，{u} 个改动后尚未运行。{acc_n} 个 CUDA 示例：{acc_p} 个已在 GPU 上通过，{acc_f} 个失败，{acc_u} 个尚未在 GPU 上运行。笔记本的 {cells} 个代码单元在构建站点时运行。",
        "shared": "有 {n} 个英文代码块与中文页的对应代码块相同（代码、标记、期望输出；注释各用各的语言），每对只测试一次，两页共用结果。",
        "unexecuted": "**本站有 {mps} 个为苹果芯片的 GPU（MPS）编写的代码块和 {xpu} 个为 Intel 显卡（XPU）编写的代码块没有在任何 CI 机器上执行过**：CI 机器都没有这两种设备。这些代码块在 CPU 上编译，其中的 `torch.…` 名称逐一对照已安装的 torch 检查过；它们展示的行为依据 PyTorch 的源码，所在页面给出了源文件链接。",
        "pages": "各页面",
        "col_page": "页面",
        "col_cpu": "CPU 上的示例",
        "result_head": "torch {torch}（CPU）",
        "col_acc": "CUDA 示例（GPU）",
        "col_device": "仅 {device}",
        "col_outputs": "校验的输出",
        "col_excused": "豁免",
        "cell_ok": "✓ {n}",
        "cell_some": "{p} / {n}",
        "cell_changed": "{u} 个改动后未运行",
        "cell_unrun": "{u} 个未运行",
        "cell_failed": "✗ {f} / {n} 失败",
        "cell_none": "{n} 个未运行",
        "cell_cells": "✓ {n} 个代码单元（构建时）",
        "cell_skipped": "跳过 {n} 个",
        "not_executed": "{n}（未执行）",
        "failed": "失败的代码块",
        "failed_none": "这些运行中没有失败的代码块。",
        "failed_item": "第 {line} 行（{language}），{where}",
        "on_cpu": "CPU",
        "on_cpu_version": "CPU，torch {torch}",
        "excused": "豁免的代码块及理由",
        "excused_none": "没有豁免的代码块。",
        "excused_item": "第 {line} 行（{language}）：{reason}",
        "pending_title": "尚未在 GPU 上运行的 CUDA 代码块",
        "pending_item": "第 {line} 行（{language}）",
        # GPU outputs under CUDA blocks
        "gpu_output": "GPU 实测：{label}，{date}",
        "gpu_none": "这个代码块还没有在 GPU 上运行过",
        "gpu_stale": "这个代码块改动后还没有在 GPU 上运行过",
        "gpu_none_text": "它在 GPU 上打印的内容这里还没有记录，在你自己的 GPU 上运行即可看到。",
        "gpu_stale_text": "上一次 GPU 实测（{label}，{date}）运行的是它改动前的版本，所以这里不显示那次的输出。在你自己的 GPU 上运行即可看到它现在打印的内容。",
    },
    "en": {
        "cpu_ok": "{n} {examples} passed on CPU (torch {torch})",
        "cpu_some": "{p} of {n} examples passed on CPU, {u} changed since (torch {torch})",
        "cpu_failed": "{f} of {n} examples failed on CPU (torch {torch})",
        "cpu_failed_other": "{f} failed with torch {torch}",
        "cpu_none": "{n} {examples} not yet run",
        "cells": "{n} code {cells_word} ran when the site was built",
        "acc_ok": "{acc}: {n} of {n} ran on a GPU (torch {torch})",
        "acc_some": "{acc}: {p} of {n} ran on a GPU (torch {torch})",
        "acc_none": "{acc}: 0 of {n} ran on a GPU",
        "acc_failed": "{f} of {n} {acc} examples failed on a GPU (torch {torch})",
        "gpu_tip": "{gpu}, torch {torch}, {date}",
        "device_unrun": "never run: {devices} {examples}",
        "device_count": "{n} {device}",
        "device_sep": ", ",
        "device_tip": "No CI machine has this device",
        "device_ok": "{n} {device}-only {examples} ran",
        "device_failed": "{f} of {n} {device}-only examples failed",
        "line_label": "What ran on this page, in the validation report",
        # under each wording of the error reference (hooks/error_pages.py)
        "printed_by": "torch releases whose wheels hold this wording: {releases} (found in the strings of PyPI's macOS "
        "wheels of {first} to {last}, [how](index.md#wording-history))",
        "list_sep": ", ",
        "box_title": "At a glance",
        "box_of": "{k} of {n}",
        "box_cpu": "CPU examples passed (torch {torch})",
        "box_cpu_failed": "{f} failed: see \"Failed blocks\" below.",
        "box_cpu_changed": "{u} more changed since the run and have not run yet.",
        "box_cuda": "CUDA examples ran on a GPU",
        "box_cuda_failed": "{f} failed.",
        "box_no_gpu": "No GPU run is recorded yet.",
        "box_devices": "MPS and XPU examples never run",
        "device_tip_all": "No CI machine has an Apple-silicon GPU (MPS) or an Intel GPU (XPU).",
        "machines": "Where the results come from",
        "cpu_machine": "**CPU run**: {date} · {cpu} · {os} · Python {python} · torch {torch}. {source}",
        "other_run": "**Another CPU run** (`make test-torch`): {date} · {cpu} · {os} · Python {python} · torch {torch}: {passed} {passed_word} passed, {failed} failed, {skipped} skipped; {changed} more {changed_word} changed since that run and {are} not counted. {source}",
        "src_other": "From `build/validation-torch-{torch}.json`.",
        "gpu_machine": "**GPU run**: {date} · {gpus} · CUDA {cuda} · {host}Python {python} · torch {torch}. {source}",
        "src_test": "From the test run before this build (`build/validation.json`).",
        "src_reused": " {n} of its blocks had not changed since an earlier run (the earliest on {date}) passed them (same code, expected output, torch, packages, snippets, harness and environment variables): that result stands, they were not run again.",
        "src_recorded": "From the last run recorded in the repository (`.ci/cpu-run/summary.json`, which `make test` updates when the results change).",
        "src_gpu": "From the GPU workflow's last run (`build/gpu/`).",
        "src_gpu_recorded": "From the GPU run recorded in the repository (`.ci/gpu-run/`).",
        "no_cpu": "**CPU run**: none recorded yet. Run `make test` and build again to see each block's result.",
        "no_gpu": "**GPU run**: none recorded yet; no CUDA example has run on a GPU.",
        "totals": "This language's pages hold {n} examples that run on CPU: {p} passed, {f} failed, {u} changed since the last run and not yet run. {acc_n} CUDA examples: {acc_p} passed on a GPU, {acc_f} failed, {acc_u} not yet run on a GPU. The notebooks' {cells} code cells ran when the site was built.",
        "shared": "{n} English blocks are identical to their Chinese twins (code, marks, expected output; each comments in its own language), so each such pair is tested once and both pages share the result.",
        "unexecuted": "**No CI machine has executed {mps} of this site's blocks written for Apple-silicon GPUs (MPS) and {xpu} written for Intel GPUs (XPU)**: none has either device. These blocks are compiled on CPU and every `torch.…` name in them is checked against the installed torch; what they show rests on PyTorch's source, which their pages link.",
        "pages": "Pages",
        "col_page": "Page",
        "col_cpu": "Examples on CPU",
        "result_head": "torch {torch} (CPU)",
        "col_acc": "CUDA examples (GPU)",
        "col_device": "{device}-only",
        "col_outputs": "Outputs checked",
        "col_excused": "Excused",
        "cell_ok": "✓ {n}",
        "cell_some": "{p} of {n}",
        "cell_changed": "{u} changed, not run",
        "cell_unrun": "{u} not run",
        "cell_failed": "✗ {f} of {n} failed",
        "cell_none": "{n} not run",
        "cell_cells": "✓ {n} code cells (build)",
        "cell_skipped": "{n} skipped",
        "not_executed": "{n} (not executed)",
        "failed": "Failed blocks",
        "failed_none": "No block failed in these runs.",
        "failed_item": "line {line} ({language}), {where}",
        "on_cpu": "CPU",
        "on_cpu_version": "CPU, torch {torch}",
        "excused": "Excused blocks and why",
        "excused_none": "No block is excused.",
        "excused_item": "line {line} ({language}): {reason}",
        "pending_title": "CUDA blocks not yet run on a GPU",
        "pending_item": "line {line} ({language})",
        "gpu_output": "Measured on a GPU: {label}, {date}",
        "gpu_none": "This block has not run on a GPU yet",
        "gpu_stale": "This block has not run on a GPU since it changed",
        "gpu_none_text": "What it prints on a GPU is not recorded here; run it on yours to see.",
        "gpu_stale_text": "The last GPU measurement ({label}, {date}) ran an earlier version of it, so its output is not shown. Run it on your GPU to see what it prints now.",
    },
}

# The reasons of the harness's own marks and of the excused blocks, in Chinese
# (the marks are the same on both pages of a pair, so they are written in English).
# A reason missing here is shown as written.
REASONS_ZH = {
    "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1)": "需要 CUDA 设备：在 GPU 工作流中运行（REQUIRE_CUDA=1）",
    "needs a CUDA device: runs in the GPU workflow (REQUIRE_CUDA=1); compiled and API-checked here": "需要 CUDA 设备：在 GPU 工作流中运行（REQUIRE_CUDA=1）；这里只编译并检查 API 名称",
    "needs two GPUs": "需要两块 GPU",
    "needs two machines; the rehearsal below runs the same launch on one, in the static form": "需要两台机器；下方的演练在一台机器上以静态形式运行同样的启动命令",
    "shown for reading: the bash block below runs this file in a subprocess": "仅供阅读：下方的 bash 代码块在子进程中运行这个文件",
    "shown for reading: the block below runs this file in a subprocess": "仅供阅读：下方的代码块在子进程中运行这个文件",
    "shown for reading: the blocks below run this file in a subprocess": "仅供阅读：下方的代码块在子进程中运行这个文件",
    "shown for reading; run by the torchrun block above": "仅供阅读：由上方的 torchrun 代码块运行",
    "installs packages; the test environment is set up by make": "会安装软件包；测试环境由 make 搭建",
    "train.py stands for your program; the CUDA block below runs a real one": "train.py 代表你自己的程序；下方的 CUDA 代码块运行一个真实的程序",
    "triggers a device-side assert, which breaks the CUDA context of the process; the CUDA bash block above runs it in child processes": "会触发设备端断言，使进程的 CUDA 上下文无法再用；上方的 CUDA bash 代码块在子进程中运行它",
    "needs compute-sanitizer from the NVIDIA CUDA Toolkit, which pip does not install; train.py stands for your program": "需要 NVIDIA CUDA Toolkit 中的 compute-sanitizer，pip 不会安装它；train.py 代表你自己的程序",
    "the same program runs as the CUDA block above": "同一个程序已作为上方的 CUDA 代码块运行",
    "runs the whole test suite, i.e. the command that runs this page": "运行整个测试套件，也就是运行本页的那条命令",
    "clones the repository and runs the whole test suite, i.e. the command that runs this page": "克隆仓库并运行整个测试套件，也就是运行本页的那条命令",
    "installs the XPU build of torch from PyTorch's own index; the test machines keep the pinned CPU build": "从 PyTorch 自己的索引安装 torch 的 XPU 构建；测试机器保留固定版本的 CPU 构建",
    "needs an NVIDIA GPU and Nsight Systems (nsys), which the test machines do not have": "需要 NVIDIA GPU 和 Nsight Systems（nsys），测试机器上没有",
    "shows where to set the variable; the CUDA block below runs it": "展示在哪里设置这个变量；下方的 CUDA 代码块运行它",
    "needs an Apple-silicon MPS device: no CI machine runs it": "需要苹果芯片的 MPS 设备：没有 CI 机器能运行它",
    "needs an Intel GPU (XPU device): no CI machine runs it": "需要 Intel 显卡（XPU 设备）：没有 CI 机器能运行它",
    "runs pytest on a page; the full test run already covers it": "对一个页面运行 pytest；完整的测试运行已经覆盖它",
}


def reason(lang: str, text: str) -> str:
    return REASONS_ZH.get(text, text) if lang == "zh" else text


def plural(lang: str, n: int, one: str, many: str) -> str:
    """The English word for ``n`` things (Chinese has one form)."""
    return one if lang == "en" and n == 1 else many


def date(lang: str, iso: str) -> str:
    """2026-11-23T12:59:22Z → 2026 年 11 月 23 日 / 23 November 2026."""
    year, month, day = iso[:10].split("-")
    if lang == "zh":
        return f"{int(year)} 年 {int(month)} 月 {int(day)} 日"
    months = "January February March April May June July August September October November December".split()
    return f"{int(day)} {months[int(month) - 1]} {year}"
