"""Join Chinese lines without a space.

Markdown turns a line break inside a paragraph into a space, which is right
between English words and wrong between Chinese characters ("很多， 其中").
Remove line breaks that sit between two CJK characters or punctuation marks,
outside ``<pre>`` blocks, so the Chinese sources can stay wrapped.
"""

from __future__ import annotations

import re

_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def on_page_content(html: str, page, config, files) -> str:
    parts = _PRE.split(html)
    return "".join(part if i % 2 else _BREAK.sub("", part) for i, part in enumerate(parts))
