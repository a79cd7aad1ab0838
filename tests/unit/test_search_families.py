"""The families of pasted messages (devguide/mkdocs_plugin/hooks/search_families.json, issue 35
item 4): a message that no page quotes opens the page of its kind, chosen by its shape.

Every error reference page is a family's page, so that an unseen message of any kind the
reference covers has somewhere to land (the autograd and layers pages had no shape: an
unseen "leaf Variable" or "index out of range in self" message landed wherever the ranking
put it). Each shape is a regular expression that Python reads as JavaScript does (the
worker compiles them), and names a page that both languages have.
"""

import json
import re

from devguide import paths
from devguide.mkdocs_plugin.hooks import search_per_language

FAMILIES = json.loads((paths.REPO / "devguide/mkdocs_plugin/hooks/search_families.json").read_text(encoding="utf-8"))


def page_source(language: str, page: str):
    base = paths.REPO / "docs" / language / page.rstrip("/")
    return next((p for p in (base.with_suffix(".md"), base / "index.md", base.with_suffix(".py")) if p.exists()), None)


def test_each_family_has_a_valid_shape_and_a_page_in_both_languages():
    assert search_per_language is not None
    for family in FAMILIES["families"]:
        re.compile(family["shape"], re.I if "i" in family["flags"] else 0)
        assert set(family["flags"]) <= {"i"}, family
        for language in ("zh", "en"):
            assert page_source(language, family["page"]), f"{family['name']}: no page {family['page']} in docs/{language}"


def test_every_error_reference_page_is_a_familys_page():
    pages = {f["page"] for f in FAMILIES["families"]}
    errors = sorted(p.stem for p in (paths.REPO / "docs/en/reference/errors").glob("*.md") if p.stem != "index")
    missing = [name for name in errors if f"reference/errors/{name}/" not in pages]
    assert not missing, f"error pages no pasted message can land on by its shape: {missing}: add a family in search_families.json"


def test_the_specific_shapes_come_before_the_broad_ones():
    """First match wins: a message that names its kind exactly is not taken by a broader family."""
    def first(text):
        for family in FAMILIES["families"]:
            if re.search(family["shape"], text, re.I if "i" in family["flags"] else 0):
                return family["page"]
        return None

    # real messages' shapes (tests/site/real_errors.toml), each where a broader family used to take it
    assert first("TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() "
                 "to copy the tensor to host memory first.") == "reference/errors/numpy/"
    assert first("RuntimeError: Expected all tensors to be on the same device, but found at least "
                 "two devices, mps:0 and cpu!") == "reference/errors/devices/"
    assert first("BrokenPipeError: [Errno 32] Broken pipe") == "reference/errors/data-loading/"
    assert first("RuntimeError: Error(s) in loading state_dict for DataParallel:") == "reference/errors/checkpoints/"
    assert first("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB") == "reference/errors/cuda-runtime/"
    assert first("RuntimeError: MPS backend out of memory") == "reference/errors/mps/"
    assert first("RuntimeError: a view of a leaf Variable that requires grad is being used in an "
                 "in-place operation.") == "reference/errors/autograd/"
    assert first("IndexError: index out of range in self") == "reference/errors/layers/"
