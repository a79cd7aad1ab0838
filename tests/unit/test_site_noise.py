"""What a build prints and leaves behind (devguide/mkdocs_plugin/hooks/quiet.py,
devguide/dev/ipython_kernel_config.py): no third-party chatter, and ``mkdocs serve``
stopped by Ctrl-C or SIGTERM removes its temporary site folder."""

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from devguide import paths
from devguide.mkdocs_plugin.hooks import quiet

QUIET = paths.REPO / "devguide" / "mkdocs_plugin" / "hooks" / "quiet.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_serve_stopped_by_a_signal_leaves_no_folder(tmp_path, sig):
    """A one-page site with the project's hook, served with TMPDIR in the test's
    folder: after the signal, no mkdocs_* folder is left there."""
    site = tmp_path / "site"
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "index.md").write_text("# Hello\n", encoding="utf-8")
    (site / "mkdocs.yml").write_text(f"site_name: t\nhooks:\n  - {QUIET}\n", encoding="utf-8")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    serve = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--no-livereload", "-a", f"127.0.0.1:{free_port()}"],
        cwd=site, env=dict(os.environ, TMPDIR=str(tmp), NO_MKDOCS_2_WARNING="1"),
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        # as a terminal's Ctrl-C finds it: a run started in the background (`make test &`)
        # hands its children SIGINT ignored, and mkdocs would then never see the signal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    log = []
    threading.Thread(target=lambda: log.extend(serve.stderr), daemon=True).start()
    try:
        deadline = time.monotonic() + 120
        while not any("Serving on" in line for line in log):
            assert time.monotonic() < deadline and serve.poll() is None, "".join(log)
            time.sleep(0.1)
        assert [p.name[:7] for p in tmp.iterdir()] == ["mkdocs_"], "serve builds into TMPDIR/mkdocs_*"
        serve.send_signal(sig)
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"mkdocs serve did not stop within 60 s of {sig.name}:\n{''.join(log)}")
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert not list(tmp.glob("mkdocs_*")), f"left behind: {list(tmp.iterdir())}\n{''.join(log)}"


def test_third_party_chatter_is_dropped(caplog):
    quiet.quiet_third_parties()
    i18n = logging.getLogger("mkdocs.plugins.mkdocs_static_i18n.reconfigure")
    jupyter = logging.getLogger("mkdocs.plugins.mkdocs_jupyter")
    with caplog.at_level(logging.DEBUG):
        i18n.info("mkdocs_static_i18n: Overriding 'en' config 'site_name' with 'PyTorch Device Guide'")
        logging.getLogger("mkdocs.plugins.mkdocs_static_i18n.plugin").info("mkdocs_static_i18n: Translated 56 navigation elements to 'en'")
        logging.getLogger("mkdocs.plugins.mkdocs_static_i18n.plugin").info("mkdocs_static_i18n: Building 'en' documentation")
        jupyter.info("Cache miss, writing: %s", "docs/zh/getting-started/device-tour.py")
        logging.getLogger("jieba").debug("Building prefix dict from the default dictionary ...")
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "mkdocs_static_i18n: Building 'en' documentation",
        "Notebook executed, its HTML cached in .cache/mkdocs-jupyter (the source is not changed): "
        "docs/zh/getting-started/device-tour.py",
    ]


def test_the_kernel_drops_only_its_tcp_notice():
    """The kernel configuration make setup installs, run as IPython runs it."""
    code = (paths.REPO / "devguide" / "dev" / "ipython_kernel_config.py").read_text(encoding="utf-8")
    exec(compile(code, "ipython_kernel_config.py", "exec"), {})
    (dropper,) = [f for f in logging.getLogger("IPKernelApp").filters if type(f).__name__ == "_DropTcpNotice"]
    record = logging.LogRecord("IPKernelApp", logging.WARNING, "", 0, "Kernel is running over TCP without encryption. …", (), None)
    assert not dropper.filter(record)
    record.msg = "Error in message handler"
    assert dropper.filter(record)
    logging.getLogger("IPKernelApp").removeFilter(dropper)
