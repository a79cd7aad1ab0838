"""``python -m devguide``: the harness's commands.

    python -m devguide page devices/moving     # one page pair, completely: blocks, twin,
                                               #   parity, census, ruff on its examples, its links
    python -m devguide parity [--fix [--from zh]]  # zh/en agreement; --fix copies code and
                                               #   outputs from one language to the other
    python -m devguide census [FILE]           # is a census file valid? (default build/validation.json)
    python -m devguide census --versions       # each torch version's run, and blocks not passed on all
    python -m devguide check-site [DIR]        # links, anchors, external requests of a built site
    python -m devguide bench                   # where the time of make test goes
    python -m devguide search-bench [SITE]     # the search benchmark alone, on a built site
    python -m devguide real-bench [SITE]       # real users' questions and pasted errors, on a built site
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from devguide import config


def page_pair(arg: str) -> list[Path]:
    """Both languages of a page (``.md``) or of a notebook (jupytext ``.py``)."""
    name = arg.strip("/")
    for lang in config.LANGUAGES:
        name = name.removeprefix(f"docs/{lang}/")
    suffix = ".py" if name.endswith(".py") else ".md"
    name = name.removesuffix(".md").removesuffix(".py")
    if suffix == ".md" and not (config.DOCS / config.DEFAULT_LANGUAGE / f"{name}.md").exists():
        if (config.DOCS / config.DEFAULT_LANGUAGE / f"{name}.py").exists():
            suffix = ".py"  # devguide page getting-started/device-tour: a notebook
    return [config.DOCS / lang / f"{name}{suffix}" for lang in config.LANGUAGES]


def run_notebook(path: Path) -> str | None:
    """A jupytext percent-format notebook is a Python script: run it as one, in a
    scratch folder, as the site build runs its cells (in order, one kernel)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="devguide-notebook-") as tmp:
        shutil.copytree(config.REPO / "snippets", Path(tmp) / "snippets")
        done = subprocess.run([sys.executable, str(path)], cwd=tmp, capture_output=True, text=True, timeout=600)
    if done.returncode:
        return f"{config.rel(path)}: the notebook failed when run as a script:\n{done.stderr[-3000:]}"
    return None


def cmd_page(args) -> int:
    """Everything about page pairs in one command (the contributor's loop): for each,
    census, links, parity and ruff on its examples, then the blocks of all in one pytest."""
    from devguide import links, pages, parity

    pairs = []
    for arg in args.page:
        pair = page_pair(arg)
        if pair not in pairs:
            pairs.append(pair)
    problems = []
    for paths in pairs:
        problems += _pair_problems(paths, links, pages, parity)
        if paths[0].suffix == ".py" and all(p.exists() for p in paths):
            problems += [p for p in map(run_notebook, paths) if p]
    for p in problems:
        print(p)
    everything = [str(p) for pair in pairs for p in pair if p.exists() and p.suffix == ".md"]
    if not everything:
        if not problems:
            print(f"{len(pairs)} notebook pair(s): the same code cells in both languages (comments aside), every cell ran")
        return 1 if problems else 0
    # the blocks of the pages (identical twins once), in one process
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n0", "-q", "-p", "no:cacheprovider", *everything, *args.pytest],
        cwd=config.REPO,
    )
    return 1 if problems or done.returncode else 0


def _pair_problems(paths: list[Path], links, pages, parity) -> list[str]:
    problems = []
    for path in paths:
        if not path.exists():
            problems.append(f"{config.rel(path)}: no such page (write both languages: {', '.join(config.rel(p) for p in paths)})")
    if problems:
        return problems
    if paths[0].suffix == ".py":  # a notebook pair: the same code cells, comments aside (its cells run below)
        return parity.parity_problems(*paths)
    for path in paths:
        problems += [e.problem for e in pages.classify(path) if e.problem]
        problems += links.page_problems(path)
    problems += parity.parity_problems(*paths)
    from devguide import lint

    problems += lint.example_problems(paths)
    return problems


def cmd_parity(args) -> int:
    from devguide import parity

    pairs, missing = parity.twins()
    problems = list(missing)
    if args.fix:
        source_lang = args.source or config.DEFAULT_LANGUAGE
        for pair in pairs:
            source = pair[config.LANGUAGES.index(source_lang)]
            target = pair[1 - config.LANGUAGES.index(source_lang)]
            if source.suffix == ".md":
                for line in parity.fix(source, target):
                    print(line)
    for zh, en in pairs:
        problems += parity.parity_problems(zh, en)
    print("\n".join(problems) if problems else f"{len(pairs)} page pairs agree")
    return 1 if problems else 0


def cmd_census(args) -> int:
    import json

    from devguide import census

    if args.versions:
        from devguide import results

        print("\n".join(results.versions_summary()))
        return 0
    path = Path(args.file or config.VALIDATION_JSON)
    try:
        problem = census.validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        problem = str(exc)
    print(f"{config.rel(path)}: {problem or 'valid'}")
    return 1 if problem else 0


def cmd_check_site(args) -> int:
    from devguide import site

    broken, external = site.check_site(Path(args.dir or config.SITE))
    for line in broken + external:
        print(line)
    return 1 if broken or external else 0


def cmd_bench(args) -> int:
    from devguide import bench

    return bench.main()


def cmd_search_bench(args) -> int:
    from devguide import searchbench

    return searchbench.main(Path(args.site) if args.site else None)


def cmd_real_bench(args) -> int:
    from devguide import realbench

    return realbench.main(Path(args.site) if args.site else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devguide", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("page", help="check one page pair completely")
    p.add_argument("page", nargs="+", help="devices/moving, or docs/zh/devices/moving.md (either language)")
    p.add_argument("--pytest", nargs="*", default=[], help="extra pytest options")
    p.set_defaults(func=cmd_page)
    p = sub.add_parser("parity", help="zh/en agreement")
    p.add_argument("--fix", action="store_true", help="copy code and outputs to the twin")
    p.add_argument("--from", dest="source", choices=config.LANGUAGES, help="the language to copy from")
    p.set_defaults(func=cmd_parity)
    p = sub.add_parser("census", help="validate a census file")
    p.add_argument("file", nargs="?")
    p.add_argument("--versions", action="store_true", help="what each torch version's run (make test, "
                   "make test-torch) passed, and the blocks that did not pass on all of them")
    p.set_defaults(func=cmd_census)
    p = sub.add_parser("check-site", help="links, anchors and external requests of a built site")
    p.add_argument("dir", nargs="?")
    p.set_defaults(func=cmd_check_site)
    p = sub.add_parser("bench", help="where the time of make test goes")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("search-bench", help="search quality, speed and bytes on a built site")
    p.add_argument("site", nargs="?", help="the built site (default build/site)")
    p.set_defaults(func=cmd_search_bench)
    p = sub.add_parser("real-bench", help="real questions and pasted errors (with sources) on a built site")
    p.add_argument("site", nargs="?", help="the built site (default build/site)")
    p.set_defaults(func=cmd_real_bench)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
