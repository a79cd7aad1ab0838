"""Every isolation and validation claim of README and CONTRIBUTING names its tests.

The claims stand between ``<!-- claims: NAME -->`` and ``<!-- /claims -->`` (issue 39,
item 10). Each unit there (a paragraph, or a list item with its indented lines) is
one claim and ends with the tests that prove it::

    - a block has a time limit … <!-- proved by: tests/unit/test_x.py::test_y tests/unit/test_z.py::test_w -->

A unit that says only what is *not* enforced ends with ``<!-- not enforced -->`` and
says so in words ("not enforced"; 没有强制 in Chinese). Every test named must exist
(its module defines it; read with ``ast``, nothing is imported or run here), and
CONTRIBUTING.md and CONTRIBUTING.zh.md name the same tests for the same claims, in
the same order, so a translation cannot drop or add a promise.
"""

import ast
import re
from functools import cache

from devguide import paths

DOCUMENTS = ("README.md", "CONTRIBUTING.md", "CONTRIBUTING.zh.md")
REGION = re.compile(r"^<!-- claims: ([\w-]+) -->\n(.*?)^<!-- /claims -->", re.S | re.M)
PROOF = re.compile(r"<!-- proved by: ([^<>]*?) -->\s*$")
NOT_ENFORCED = re.compile(r"<!-- not enforced -->\s*$")
SAYS_NOT_ENFORCED = ("not enforced", "没有强制")
ITEM = re.compile(r"^(?:[-*] |\d+\. )")


def units(text: str) -> list[tuple[str, int, str]]:
    """(region, line, text) of every unit inside a claims region of ``text``."""
    found = []
    for region in REGION.finditer(text):
        first = text.count("\n", 0, region.start(2)) + 1
        current: list[str] = []
        start = first
        for number, line in enumerate(region.group(2).splitlines(), first):
            if not line.strip() or ITEM.match(line):
                if current:
                    found.append((region.group(1), start, "\n".join(current)))
                current, start = ([line], number) if line.strip() else ([], number + 1)
            else:
                if not current:
                    start = number
                current.append(line)
        if current:
            found.append((region.group(1), start, "\n".join(current)))
    return found


def proof_of(unit: str) -> list[str] | None:
    """The test ids a unit names, [] for a unit that is not enforced, None for neither."""
    proved = PROOF.search(unit)
    if proved:
        return proved.group(1).replace(",", " ").split()
    return [] if NOT_ENFORCED.search(unit) else None


@cache
def defined_tests(module: str) -> frozenset[str]:
    """``name`` and ``Class::name`` of every test function ``module`` defines."""
    tree = ast.parse((paths.REPO / module).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{f.name}" for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(n for n in names if n.split("::")[-1].startswith("test"))


def missing_test(test_id: str) -> str | None:
    """Why ``test_id`` names no test, or None."""
    module, _, name = test_id.partition("::")
    name = name.split("[")[0]
    if not module.startswith("tests/") or not module.endswith(".py") or not name:
        return f"{test_id} is not written as tests/<file>.py::<test>"
    if not (paths.REPO / module).is_file():
        return f"{test_id}: no such file"
    if name not in defined_tests(module):
        return f"{test_id}: {module} defines no test {name}"
    return None


def claim_problems(document: str, text: str) -> list[str]:
    """Every unit without its proof, with a missing test, or tagged not enforced without saying so."""
    problems = []
    opened = [m.start() for m in re.finditer(r"^<!-- claims: ", text, re.M)]
    closed = {m.start() for m in REGION.finditer(text)}
    problems += [f"{document}:{text.count(chr(10), 0, at) + 1}: this claims region has no <!-- /claims --> "
                 f"after it (its claims would go unchecked): close it" for at in opened if at not in closed]
    for _, line, unit in units(text):
        proof = proof_of(unit)
        if proof is None:
            problems.append(f"{document}:{line}: this claim ends with no <!-- proved by: tests/…::test_… --> "
                            f"(or <!-- not enforced --> where it says what is not enforced): name the tests "
                            f"that prove it, or rewrite it to say only what they prove")
        elif not proof and not any(words in NOT_ENFORCED.sub("", unit).lower() for words in SAYS_NOT_ENFORCED):
            problems.append(f"{document}:{line}: marked <!-- not enforced --> but does not say "
                            f"'not enforced' ('没有强制'): say it plainly")
        else:
            problems += [f"{document}:{line}: {why}" for why in filter(None, map(missing_test, proof))]
    return problems


def read(document: str) -> str:
    return (paths.REPO / document).read_text(encoding="utf-8")


def test_every_claim_names_the_tests_that_prove_it():
    problems = [p for document in DOCUMENTS for p in claim_problems(document, read(document))]
    assert not problems, "\n".join(problems)


def test_the_isolation_and_refusal_claims_are_marked_in_every_document():
    regions = {document: {region for region, _, _ in units(read(document))} for document in DOCUMENTS}
    assert regions["README.md"] >= {"isolation"}, regions
    for document in ("CONTRIBUTING.md", "CONTRIBUTING.zh.md"):
        assert regions[document] >= {"isolation", "refusals"}, (document, regions[document])
        assert len(units(read(document))) >= 20, f"{document}: fewer claims than the harness enforces"


def test_both_contributing_files_prove_the_same_claims_in_the_same_order():
    def proofs(document):
        return [(region, proof_of(unit)) for region, _, unit in units(read(document))]

    en, zh = proofs("CONTRIBUTING.md"), proofs("CONTRIBUTING.zh.md")
    for (region, line, _), a, b in zip(units(read("CONTRIBUTING.md")), en, zh, strict=False):
        assert a == b, f"CONTRIBUTING.md:{line} ({region}) names {a[1]}, its Chinese twin names {b[1]}"
    assert len(en) == len(zh), f"CONTRIBUTING.md has {len(en)} claims, CONTRIBUTING.zh.md {len(zh)}"


def test_a_claim_without_proof_a_missing_test_and_a_silent_exception_are_named():
    """Planted: a unit with no comment, one naming a test that does not exist, one
    tagged not enforced that does not say so, and a good one of each kind."""
    text = (
        "Prose outside a region is not a claim.\n\n"
        "<!-- claims: isolation -->\n"
        "- a block has a time limit\n"
        "  of 120 s. <!-- proved by: tests/unit/test_claims.py::test_every_claim_names_the_tests_that_prove_it -->\n"
        "- a block never escapes. <!-- proved by: tests/unit/test_claims.py::test_no_such_test[x] -->\n"
        "- a block is confined.\n"
        "\n"
        "/dev is writable. <!-- not enforced -->\n"
        "\n"
        "Not enforced: /dev is writable. <!-- not enforced -->\n"
        "- escapes. <!-- proved by: tests/unit/test_gone.py::test_x --> and more text after it\n"
        "<!-- /claims -->\n"
    )
    assert [(r, line) for r, line, _ in units(text)] == [("isolation", 4), ("isolation", 6), ("isolation", 7),
                                                        ("isolation", 9), ("isolation", 11), ("isolation", 12)]
    problems = claim_problems("X.md", text)
    assert problems[0] == "X.md:6: tests/unit/test_claims.py::test_no_such_test[x]: tests/unit/test_claims.py defines no test test_no_such_test"
    assert problems[1].startswith("X.md:7: this claim ends with no <!-- proved by:")
    assert problems[2].startswith("X.md:9: marked <!-- not enforced --> but does not say")
    assert problems[3].startswith("X.md:12: this claim ends with no")  # text after the comment is unproved
    assert len(problems) == 4, problems
    assert missing_test("tests/unit/test_gone.py::test_x") == "tests/unit/test_gone.py::test_x: no such file"
    unclosed = claim_problems("Y.md", "Intro.\n\n<!-- claims: isolation -->\n- a block is confined.\n")
    assert unclosed == ["Y.md:3: this claims region has no <!-- /claims --> after it (its claims would go unchecked): close it"]
    assert "is not written as" in missing_test("test_claims::test_x")
