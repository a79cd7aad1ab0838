"""devguide: the harness of the PyTorch Device Guide -- read, run and report its pages.

One concern per folder; the folders are the layers, each importing only those above it:

* ``paths``          -- the repository, its languages (from mkdocs.yml), build paths, the pinned torch
* ``source/``        -- what the pages say: ``fences`` (each fence classified, or its problem named),
  ``marks`` (the comments above a fence), ``blocks`` (the runnable blocks with their page lines),
  ``comments`` (code without comments: what twins and reused results are keyed on), ``parity``
  (the two languages agree; ``--fix`` copies code across), ``nav``, ``links``, ``lint`` (ruff on examples)
* ``census/``        -- what ran: ``file`` owns build/validation.json (format, schema, reuse keys),
  ``summary`` the CPU run recorded in the repository, ``results`` the runs per page and block,
  ``machine`` and ``torch_facts`` what they ran on (torch asked in a process of its own)
* ``run/``           -- one block in isolation: ``zygote`` (``python -m devguide.run.zygote``, one
  process per block) and ``zygote_client`` (the pytest side, output checks), ``sandbox`` (what a
  block may touch and use), ``reaper`` (what it leaves), ``ports``, ``limit``
* ``pytest_plugin/`` -- the pytest plugin (entry point ``pytest11``): ``page_items`` (pages, blocks
  and twin checks as items), ``state`` (the results a run gathers, handed to ``census.file``),
  ``scheduling`` (xdist's order), ``terminal``, ``apicheck`` (torch names of device-only blocks),
  ``reuse`` (tiers whose inputs did not change)
* ``mkdocs_plugin/`` -- the MkDocs plugin (``plugins: - devguide``): ``hooks/`` (notebooks with i18n,
  per-language search, the offline copy, Chinese line breaks, how pages read, error pages),
  ``report/`` (the validation report page, its box, the line under each title, GPU outputs),
  ``reader/`` (what readers take away: downloads, notebooks, llms.txt, the print page, the PDF,
  repository links), ``words`` (the report's words in zh and en)
* ``dev/``           -- contributors' tools: the benchmarks (``bench``, ``searchbench``,
  ``realbench``), the built site's checks (``site_check``), Chromium, axe-core, the npm files
  fetched without npm, the notebook kernel's configuration; ``python -m devguide`` is the
  command line.
"""
