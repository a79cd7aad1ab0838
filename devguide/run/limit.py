"""The whole run's own time limit: a run that hangs (a block the harness cannot
stop, a worker that never reports) ends anyway, saying so.

Every pytest process of a run (the controller and each xdist worker, or the one
process of ``-n0``) arms a timer at its start: ``DOCS_RUN_TIMEOUT`` seconds
(default ``settings.DEFAULT_RUN_TIMEOUT``; 0 turns it off). When it fires the process
says which block was running, stops its block runner (which kills the block
with everything it started and removes its sandbox: devguide.run.zygote) and exits
with status 3.
"""

from __future__ import annotations

import os
import sys
import threading

from devguide import settings

EXIT_STATUS = 3


def run_timeout() -> float:
    return settings.current().run_timeout


def arm(zygote, config=None, worker: str = "") -> threading.Timer | None:
    """Start the timer of this process (``zygote``: its block runner, stopped when
    it fires; ``config``: pytest's, whose output capture is suspended to say so)."""
    limit = run_timeout()
    if limit <= 0:
        return None

    def expire():
        running = getattr(zygote, "running", None)
        who = f"pytest worker {worker}" if worker else "the run"
        capture = config.pluginmanager.getplugin("capturemanager") if config is not None else None
        try:
            if capture is not None:
                capture.suspend_global_capture(in_=False)  # else the message goes into the capture
        except Exception:  # noqa: BLE001 - the run ends whatever happens here
            pass
        err = sys.__stderr__ or sys.stderr  # the process's own stderr, under pytest's capture
        err.write(
            f"\n{who}: the whole run took longer than its limit of {limit:g} s and was stopped"
            + (f"; the block running then: {running}" if running else "")
            + ". A block that needs long says so with <!--pytest.mark.timeout(N)-->; "
            "DOCS_RUN_TIMEOUT sets the run's limit (0: none)\n"
        )
        err.flush()
        try:
            zygote.stop()
        finally:
            os._exit(EXIT_STATUS)

    timer = threading.Timer(limit, expire)
    timer.daemon = True
    timer.start()
    return timer
