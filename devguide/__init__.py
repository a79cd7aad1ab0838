"""devguide: the harness of the PyTorch Device Guide -- read, run and report its pages.

One module per concern:

* ``config``   -- the repository, its languages (from mkdocs.yml), build paths, the pinned torch
* ``pages``    -- fences: the only parser (each fence classified, or its problem named);
  ``marks``: the comments above a fence (marks, keywords, outputs for other torch versions);
  ``blocks``: the runnable blocks, as pytest-codeblocks extracts them, with their page lines
* ``running``  -- running a block and checking its output (the pytest side); ``runner``:
  the zygote's side, one process per block; ``sandbox``: what a block may touch and use
  (its folders, Landlock and the repository guard, its memory, threads and time)
* ``apicheck`` -- the torch names of CUDA-, MPS- and XPU-only blocks, checked where the device is missing
* ``parity``   -- the two languages of a page agree (``--fix`` copies code across);
  ``comments``: a block's code without its comments, what the languages share (each
  comments in its own words) and what twins and reused results are keyed on
* ``nav``      -- mkdocs.yml's nav: every page listed, every title translated
* ``census``   -- owns build/validation.json (format, schema, robust loading); ``summary``:
  the last CPU run recorded in the repository (.ci/cpu-run/summary.json)
* ``pytest_plugin`` -- the pytest plugin's hooks (entry point ``pytest11``: loaded by name);
  ``collection``: pages, blocks and twin checks as pytest items; ``run_state``: the results
  a run gathers, handed to ``census`` at its end; ``scheduling``: the order and units of work
  under xdist; ``terminal``: the skipped tests at the end of a run, one line per reason
* ``mkdocs_plugin`` -- the MkDocs plugin (``plugins: - devguide``), which registers the event
  handlers of ``site_hooks/`` (notebooks with i18n, per-language search, the offline copy,
  Chinese line breaks, how pages read), ``report`` and ``reader_site``
* the test results in the site: ``results`` (the runs read from the census files, per page
  and block), ``report_words`` (their words in zh and en), ``report`` (the validation
  report page and the two event handlers; ``report_box``: its numbers at a glance), ``validated_line`` (the line under each page
  title), ``gpu_outputs`` (what CUDA blocks printed on a GPU, under them)
* what readers take away (``reader_site``, which uses): ``repository`` (repo_url, edit and issue links), ``downloads`` (each page's code
  as ``.py``), ``notebook_downloads`` (notebooks as ``.ipynb`` with the build's outputs, Colab), ``llms`` (each page's Markdown, llms.txt),
  ``printing`` (the whole guide on one page), ``pdf`` (that page printed to a PDF per language, ``make pdf``)
* ``site``, ``links``, ``lint``, ``browser``, ``axe``, ``vendor``, ``bench``, ``searchbench`` --
  the built site, source links, ruff on examples, Chromium, accessibility (axe-core), the npm
  files fetched without npm, timings, the search benchmark; ``python -m devguide`` is the
  command line.
"""
