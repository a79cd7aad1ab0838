"""``python -m devguide``: the harness's commands.

    python -m devguide page devices/moving     # one page pair, completely: census, links, nav,
                                               #   parity, ruff on its examples, blocks and twin
                                               #   (--show-output: what each passing block printed)
    python -m devguide parity [--fix [--from zh]]  # zh/en agreement; --fix copies code and
                                               #   outputs from one language to the other
    python -m devguide census [FILE]           # is a census file valid? (default build/validation.json)
    python -m devguide census --versions       # each torch version's run, and blocks not passed on all
    python -m devguide check-site [DIR]        # links, anchors, external requests of a built site
    python -m devguide bench [--budgets]       # the budgets, measured; where the time of make test goes
    python -m devguide search-bench [SITE]     # the search benchmark alone, on a built site
    python -m devguide real-bench [SITE]       # real users' questions and pasted errors, on a built site
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from devguide import paths
from devguide.source.parity import page_pair


def run_notebook(path: Path) -> str | None:
    """A jupytext percent-format notebook is a Python script: run it as one, in a
    scratch folder, as the site build runs its cells (in order, one kernel)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="devguide-notebook-") as tmp:
        shutil.copytree(paths.REPO / "snippets", Path(tmp) / "snippets")
        done = subprocess.run([sys.executable, str(path)], cwd=tmp, capture_output=True, text=True, timeout=600)
    if done.returncode:
        return f"{paths.rel(path)}: the notebook failed when run as a script:\n{done.stderr[-3000:]}"
    return None


# What `devguide page` checks of a page pair, in order: (name, what it means).
PAGE_CHECKS = (
    ("pages", "both languages exist, in UTF-8"),
    ("census", "every fence is run, shown or excused; marks and output markers are well formed"),
    ("links", "links and anchors, in the sources"),
    ("nav", "in mkdocs.yml's nav, its title translated in nav_translations"),
    ("parity", "same code, marks, expected outputs and anchors in both languages"),
    ("ruff", "ruff on the examples"),
)


def cmd_page(args) -> int:
    """Everything about page pairs in one command (the contributor's loop): for each,
    the checks of PAGE_CHECKS, then the blocks of all in one pytest; at the end, the
    list of what was checked and what was not."""
    pairs = []
    for arg in args.page:
        pair = page_pair(arg)
        if pair not in pairs:
            pairs.append(pair)
    found: dict[str, list[str]] = {}  # by check: only the checks that applied to some pair
    notebooks = []
    for twins in pairs:
        for name, problems in _pair_problems(twins).items():
            found.setdefault(name, []).extend(problems)
        if twins[0].suffix == ".py" and all(p.exists() for p in twins):
            notebooks += [p for p in map(run_notebook, twins) if p]
    for problems in [*found.values(), notebooks]:
        for p in problems:
            print(p)
    everything = [str(page) for pair in pairs for page in pair if page.exists() and page.suffix == ".md"]
    blocks = None
    if everything:
        # the blocks of the pages (identical twins once), in one process; not their twin
        # items: the pages and parity checks above said it once already
        not_twins = [a for e in everything for a in ("--deselect", f"{paths.rel(Path(e))}::twin")]
        blocks = subprocess.run(
            [sys.executable, "-m", "pytest", "-n0", "-q", "-p", "no:cacheprovider", *everything, *not_twins,
             *(["--show-output"] if args.show_output else []), *args.pytest],
            cwd=paths.REPO,
        ).returncode
    failed = any(found.values()) or bool(notebooks) or bool(blocks)
    print(checks_done(pairs, found, notebooks if any(p[0].suffix == ".py" for p in pairs) else None, blocks))
    return 1 if failed else 0


def checks_done(pairs, found: dict[str, list[str]], notebooks: list[str] | None, blocks: int | None) -> str:
    """The checks this run made, each with its result, and what only make test checks."""
    names = ", ".join(paths.rel(p) for pair in pairs for p in pair)
    lines = [f"devguide page checked {names}:"]
    for name, meaning in PAGE_CHECKS:
        if name not in found:
            lines.append(f"  {'-':6} {name:8} not applied (a page is missing or not UTF-8, or the pair is a notebook)")
            continue
        problems = found[name]
        lines.append(f"  {'FAILED' if problems else 'ok':6} {name:8} {meaning}"
                     + (f" ({len(problems)} problem{'s' * (len(problems) > 1)} above)" if problems else ""))
    if notebooks is not None:
        lines.append(f"  {'FAILED' if notebooks else 'ok':6} {'notebook':8} every cell ran, as a script")
    if blocks is not None:
        lines.append(f"  {'FAILED' if blocks else 'ok':6} {'blocks':8} every python and bash block, "
                     "expected outputs (pytest, above)")
    lines.append("  not checked here: the strict site build, the built site's links and the browser tests "
                 "(make test runs them)")
    return "\n".join(lines)


def _pair_problems(twins: list[Path]) -> dict[str, list[str]]:
    """The problems of one page pair, by the name of the check in PAGE_CHECKS."""
    from devguide.source import fences, links, nav, parity

    found: dict[str, list[str]] = {}
    found["pages"] = [f"{paths.rel(path)}: no such page (write both languages: "
                      f"{', '.join(paths.rel(p) for p in twins)})" for path in twins if not path.exists()]
    if found["pages"]:
        return found
    for path in twins:
        if path.suffix == ".md":
            try:
                fences.read_page(path)
            except paths.DocsError as exc:  # not plain UTF-8: nothing else can be read of it
                found["pages"].append(str(exc))
    if found["pages"]:
        return found
    found["nav"] = nav.page_problems(twins[0])
    if twins[0].suffix == ".py":  # a notebook pair: the same code cells, comments aside (its cells run in cmd_page)
        found["parity"] = parity.parity_problems(*twins)
        return found
    found["census"] = [e.problem for path in twins for e in fences.classify(path) if e.problem]
    found["links"] = [problem for path in twins for problem in links.page_problems(path)]
    found["parity"] = parity.parity_problems(*twins)
    from devguide.source import lint

    found["ruff"] = lint.example_problems(twins)
    return found


def cmd_parity(args) -> int:
    from devguide.source import parity

    pairs, missing = parity.twins()
    problems = list(missing)
    if args.fix:
        source_lang = args.source or paths.DEFAULT_LANGUAGE
        for pair in pairs:
            source = pair[paths.LANGUAGES.index(source_lang)]
            target = pair[1 - paths.LANGUAGES.index(source_lang)]
            if source.suffix == ".md":
                for line in parity.fix(source, target):
                    print(line)
    for zh, en in pairs:
        problems += parity.parity_problems(zh, en)
    print("\n".join(problems) if problems else f"{len(pairs)} page pairs agree")
    return 1 if problems else 0


def cmd_census(args) -> int:
    import json

    from devguide.census import file as census

    if args.versions:
        from devguide.census import results

        print("\n".join(results.versions_summary()))
        return 0
    path = Path(args.file or paths.VALIDATION_JSON)
    try:
        problem = census.validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        problem = str(exc)
    print(f"{paths.rel(path)}: {problem or 'valid'}")
    return 1 if problem else 0


def cmd_check_site(args) -> int:
    from devguide.dev import site_check

    broken, external = site_check.check_site(Path(args.dir or paths.SITE))
    for line in broken + external:
        print(line)
    return 1 if broken or external else 0


def cmd_bench(args) -> int:
    from devguide.dev import bench

    return bench.main([*(["--budgets"] if args.budgets else []), "--page", args.page])


def cmd_search_bench(args) -> int:
    from devguide.dev import searchbench

    return searchbench.main(Path(args.site) if args.site else None)


def cmd_real_bench(args) -> int:
    from devguide.dev import realbench

    return realbench.main(Path(args.site) if args.site else None)


def cmd_wording_history(args) -> int:
    from devguide.dev import wording_history

    return wording_history.main(["--offline"] if args.offline else [])


def cmd_pdf(args) -> int:
    # here, not as `python -m devguide.mkdocs_plugin.reader.pdf`: the plugin's package imports that
    # module first, and runpy then warned that it was already in sys.modules
    from devguide.mkdocs_plugin.reader import pdf

    return pdf.main([args.site, args.out])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devguide", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("page", help="check one page pair completely")
    p.add_argument("page", nargs="+", help="devices/moving, or docs/zh/devices/moving.md (either language)")
    p.add_argument("--pytest", nargs="*", default=[], help="extra pytest options")
    p.add_argument("--show-output", action="store_true",
                   help="print what each passing block printed, under its page line (pytest --show-output)")
    p.set_defaults(func=cmd_page)
    p = sub.add_parser("parity", help="zh/en agreement")
    p.add_argument("--fix", action="store_true", help="copy code and outputs to the twin")
    p.add_argument("--from", dest="source", choices=paths.LANGUAGES, help="the language to copy from")
    p.set_defaults(func=cmd_parity)
    p = sub.add_parser("census", help="validate a census file")
    p.add_argument("file", nargs="?")
    p.add_argument("--versions", action="store_true", help="what each torch version's run (make test, "
                   "make test-torch) passed, and the blocks that did not pass on all of them")
    p.set_defaults(func=cmd_census)
    p = sub.add_parser("check-site", help="links, anchors and external requests of a built site")
    p.add_argument("dir", nargs="?")
    p.set_defaults(func=cmd_check_site)
    p = sub.add_parser("bench", help="the budgets (every block, warm make test, one page pair) and where the time goes")
    p.add_argument("--budgets", action="store_true", help="measure the three budgets only (make test twice, one page pair)")
    p.add_argument("--page", default="devices/moving", help="the page pair the third budget times")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("search-bench", help="search quality, speed and bytes on a built site")
    p.add_argument("site", nargs="?", help="the built site (default build/site)")
    p.set_defaults(func=cmd_search_bench)
    p = sub.add_parser("real-bench", help="real questions and pasted errors (with sources) on a built site")
    p.add_argument("site", nargs="?", help="the built site (default build/site)")
    p.set_defaults(func=cmd_real_bench)
    p = sub.add_parser("wording-history", help="which torch releases print each wording of the error pages (downloads wheels)")
    p.add_argument("--offline", action="store_true", help="only the releases already in build/wording-history/")
    p.set_defaults(func=cmd_wording_history)
    p = sub.add_parser("pdf", help="each language's PDF of an offline build, printed with Chromium")
    p.add_argument("site", nargs="?", default=str(paths.BUILD / "offline"), help="the offline build (default build/offline)")
    p.add_argument("out", nargs="?", default=str(paths.BUILD / "artifacts" / "pdf"), help="where the PDFs go")
    p.set_defaults(func=cmd_pdf)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
