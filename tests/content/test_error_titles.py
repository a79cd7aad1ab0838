"""The rule the error reference states (reference/errors/index.md): "each entry is
titled with the message as torch 2.13 prints it", older wordings being the other forms
listed under it. An entry whose own `text` blocks (its verified output or the full
message it quotes) print its message with another exception class than its title
breaks the rule: review 2026-12-06, problem 3, found the device-side-assert entry
titled ``RuntimeError: …`` while torch 2.13 prints ``torch.AcceleratorError: …``, and
the 2.13 form demoted to a variant that search then ranked first."""

import re

from devguide import paths

ENTRY = re.compile(r"^## (.+?) \{ #([\w-]+) \}[ \t]*$", re.M)
TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```", re.M | re.S)
# "RuntimeError: message", "torch.AcceleratorError: message"
CLASS = re.compile(r"^([\w.]*(?:Error|Exception|Warning)):\s+(.*)$")
KEY = 40  # characters of the message after its class that identify it in a printed line


def _plain(title: str) -> str:
    return re.sub(r"\\(.)", r"\1", title.replace("`", "")).strip()


def titles_against_printed(page) -> list[str]:
    """``path:line: title … but the entry prints …`` for each entry of a family page whose
    title's exception class is not the one its own text blocks print the message with."""
    text = page.read_text(encoding="utf-8")
    heads = list(ENTRY.finditer(text))
    found = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end():end].split("\n#### ")[0]  # the entry, not its other forms
        title = _plain(head.group(1))
        m = CLASS.match(title)
        if not m:
            continue
        key = m.group(2)[:KEY]
        printed = [line.strip() for block in TEXT_BLOCK.findall(body) for line in block.splitlines()
                   if key in line and CLASS.match(line.strip())]
        if printed and not any(line.startswith(f"{m.group(1)}: {key}") for line in printed):
            line = text[: head.start()].count("\n") + 1
            found.append(f"{paths.rel(page)}:{line}: titled {title[:80]!r}, but the entry prints {printed[0][:80]!r}: "
                         "title the entry with the form torch 2.13 prints and list the other under its other forms")
    return found


def test_each_entry_is_titled_as_torch_prints_it():
    pages = sorted(paths.DOCS.glob("*/reference/errors/*.md"))
    assert len(pages) > 30, pages
    wrong = [problem for page in pages for problem in titles_against_printed(page)]
    assert not wrong, "\n".join(wrong)


def test_an_entry_titled_with_an_older_class_is_caught(tmp_path):
    page = tmp_path / "family.md"
    page.write_text("# Family\n\n## RuntimeError: CUDA error: device-side assert triggered { #dsa }\n\n"
                    "```text\ntorch.AcceleratorError: CUDA error: device-side assert triggered\n```\n\n"
                    "Other forms of this message:\n\n#### RuntimeError: x { #x }\n", encoding="utf-8")
    (problem,) = titles_against_printed(page)
    assert "family.md:3: titled 'RuntimeError" in problem and "torch.AcceleratorError" in problem
