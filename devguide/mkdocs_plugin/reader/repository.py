"""The site's repository: its address, and what the site derives from it.

``mkdocs.yml``'s ``repo_url`` is the one place the address is written. From it
come the header link and the "edit this page" links (mkdocs and Material), the
"report a problem with this page" link (a pre-filled GitHub issue, here), and
every mention in the pages: a page writes ``{{ repo_url }}`` (in prose links and
in code) and the site's hook substitutes it, in the built page and in the page's
Markdown served beside it (``devguide.mkdocs_plugin.reader.llms``).
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote, urlencode

from devguide import paths

TOKEN = "{{ repo_url }}"

TEXT = {
    "zh": {
        "download": "下载本页代码",
        "download_short": "下载",
        "download_notebook": "下载笔记本（.ipynb，带构建时运行的输出）",
        "colab": "在 Colab 中打开这个笔记本",
        "download_jupytext": "下载笔记本源文件（jupytext .py）",
        "report": "报告本页的问题",
        "issue_title": "[{src}] ",
        "issue_body": (
            "页面：{url}\n"
            "源文件：{src}\n"
            "本站用 torch {torch}（CPU）验证了这一页的代码。\n\n"
            "### 哪里不对\n\n"
            "（哪一段、哪个代码块；你看到了什么，期望看到什么）\n\n"
            "### 你的环境\n\n"
            "torch 版本（`python -c \"import torch; print(torch.__version__)\"`）、设备（CPU / GPU 型号）、操作系统：\n"
        ),
    },
    "en": {
        "download": "Download this page's code",
        "download_short": "Download",
        "download_notebook": "Download the notebook (.ipynb, with the outputs of the build's run)",
        "colab": "Open this notebook in Colab",
        "download_jupytext": "Download the notebook's source (jupytext .py)",
        "report": "Report a problem with this page",
        "issue_title": "[{src}] ",
        "issue_body": (
            "Page: {url}\n"
            "Source: {src}\n"
            "The site validated this page's code with torch {torch} (CPU).\n\n"
            "### What is wrong\n\n"
            "(which paragraph or block; what you saw, what you expected)\n\n"
            "### Your setup\n\n"
            "torch version (`python -c \"import torch; print(torch.__version__)\"`), device (CPU / GPU model), OS:\n"
        ),
    },
}


def text(lang: str) -> dict:
    return TEXT.get(lang, TEXT["en"])


@functools.lru_cache(maxsize=1)
def repo_url() -> str:
    """``repo_url`` of mkdocs.yml, without a trailing slash."""
    found = re.search(r"^repo_url:\s*(\S+)\s*$", (paths.REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    if not found:
        raise paths.DocsError("mkdocs.yml", None, "no repo_url: the site derives its repository links from it")
    return found.group(1).strip("'\"").rstrip("/")


def substitute(markdown: str, url: str | None = None) -> str:
    """Replace ``{{ repo_url }}`` with the repository's address."""
    return markdown.replace(TOKEN, url or repo_url())


def issue_url(src: str, page_url: str, lang: str, torch: str | None = None, url: str | None = None) -> str:
    """A new GitHub issue, its title and body filled in: the page, its source, the torch
    the site validated it with. ``src`` is the source path (``docs/en/devices/moving.md``)."""
    t = text(lang)
    torch = torch or paths.pinned_torch()
    query = urlencode(
        {
            "title": t["issue_title"].format(src=src),
            "body": t["issue_body"].format(url=page_url, src=src, torch=torch),
        },
        quote_via=quote,
    )
    return f"{url or repo_url()}/issues/new?{query}"
