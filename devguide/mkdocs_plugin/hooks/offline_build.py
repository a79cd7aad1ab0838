"""The offline build: ``make offline`` (``OFFLINE=true``), opened from a folder.

Material's offline plugin makes links end in ``index.html`` and inlines the
search index into ``search_index.js``, but adds the iframe-worker shim (search
in a ``file://`` page) from unpkg.com -- an external request. ``make offline``
unpacks that shim from the npm registry into ``build/vendor/``; this hook serves
it from the site instead (``IFRAME_WORKER_SHIM`` names the file).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from devguide import settings

SHIM_URL = "assets/javascripts/iframe-worker-shim.js"


def _enabled(config) -> bool:
    offline = config.plugins.get("material/offline") or config.plugins.get("offline")
    return bool(offline and offline.config.enabled)


@event_priority(-50)  # after the offline plugin has added its unpkg.com polyfill
def on_config(config):
    if not _enabled(config):
        return config
    polyfills = config.extra.get("polyfills", [])
    config.extra["polyfills"] = [SHIM_URL if "iframe-worker" in str(p) else p for p in polyfills]
    return config


def on_post_build(config) -> None:
    if not _enabled(config):
        return
    shim = settings.current().iframe_worker_shim
    if not shim.is_file():
        raise PluginError(
            f"offline build: {shim} not found; build it with `make offline`, which unpacks "
            "the iframe-worker shim from the npm registry first (python -m devguide.dev.vendor iframe-worker)"
        )
    target = Path(config.site_dir) / SHIM_URL
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shim, target)
