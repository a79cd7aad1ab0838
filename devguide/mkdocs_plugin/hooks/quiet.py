"""A build that says what matters: third-party chatter off, and ``mkdocs serve``
stopped by a signal leaves nothing behind.

* jieba (the Chinese word cutter of the search index) prints four lines about
  its dictionary on every build ("Building prefix dict…", "Loading model from
  cache /tmp/jieba.cache"): its logger is set to INFO, which drops them.
* mkdocs-static-i18n says at INFO which settings it overrides for English and
  how many nav titles it translated, on every build: dropped (its "Building
  'en' documentation" line stays).
* mkdocs-jupyter's "Cache miss, writing: docs/zh/….py" reads as if the build
  wrote into docs/; it writes the notebook's HTML into its cache
  (``.cache/mkdocs-jupyter``): said so.
* The notebook kernel's "Kernel is running over TCP without encryption" comes
  from the kernel process, not from MkDocs: ``make setup`` installs
  ``devguide/dev/ipython_kernel_config.py`` into the venv, which drops that one
  warning (the kernel listens on 127.0.0.1, for this build only).
* MkDocs' own anchor check (mkdocs.yml ``validation: anchors``; fatal in the strict
  build) says "Doc file 'en/a.md' contains a link 'b.md#x', but the doc 'en/b.md'
  does not contain an anchor '#x'": no line, no hint. The source check
  (``devguide.source.links``) adds the link's page line and the nearest anchors
  of that page ("did you mean #y?").
* ``mkdocs serve`` builds into a temporary folder (``/tmp/mkdocs_*``, about
  24 MB) that it removes when it stops on Ctrl-C, but not on SIGTERM or SIGHUP
  (``kill``, a closed terminal, ``make`` passing on its own SIGTERM): here those
  signals stop it the way Ctrl-C does, so it removes the folder.
"""

from __future__ import annotations

import logging
import re
import signal
import threading

I18N_CHATTER = ("Overriding '", "Translated ")


class _DropI18nChatter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        # "mkdocs_static_i18n: Overriding 'en' config …" (the plugin logger's prefix first)
        return not str(record.msg).split(": ", 1)[-1].startswith(I18N_CHATTER)


class _SayWhereTheCacheIs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Cache miss, writing: "):
            record.msg = "Notebook executed, its HTML cached in .cache/mkdocs-jupyter (the source is not changed): %s"
        return True


MISSING_ANCHOR = re.compile(r"^Doc file '(?P<page>[^']+)' contains a link '[^']*#(?P<anchor>[^']+)', but ")


class _SayWhereTheAnchorIs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        m = MISSING_ANCHOR.match(str(record.msg))
        if m:
            from devguide import paths
            from devguide.source import links

            page = paths.DOCS / m.group("page")
            try:
                said = [p for p in links.page_problems(page) if f"anchor #{m.group('anchor')} " in p]
            except (OSError, paths.DocsError):  # a page that cannot be read is reported by itself
                said = []
            if said:
                record.msg = str(record.msg) + "".join(f"\n  {p}" for p in dict.fromkeys(said))
                record.args = ()
        return True


def quiet_third_parties() -> None:
    """The filters above, on the loggers that emit those lines (once per process)."""
    import jieba

    jieba.setLogLevel(logging.INFO)
    for name in ("mkdocs.plugins.mkdocs_static_i18n.reconfigure", "mkdocs.plugins.mkdocs_static_i18n.plugin"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropI18nChatter) for f in logger.filters):
            logger.addFilter(_DropI18nChatter())
    logger = logging.getLogger("mkdocs.plugins.mkdocs_jupyter")
    if not any(isinstance(f, _SayWhereTheCacheIs) for f in logger.filters):
        logger.addFilter(_SayWhereTheCacheIs())
    logger = logging.getLogger("mkdocs.structure.pages")
    if not any(isinstance(f, _SayWhereTheAnchorIs) for f in logger.filters):
        logger.addFilter(_SayWhereTheAnchorIs())


def _stop_like_ctrl_c(signum, frame):
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


def on_startup(command: str, dirty: bool) -> None:
    quiet_third_parties()
    # serve's own `except KeyboardInterrupt` / `finally` removes its temporary site folder
    # (`mkdocs serve --clean` says command="build": the handlers go in for any command)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _stop_like_ctrl_c)
