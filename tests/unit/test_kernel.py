"""The kernel the site build runs the notebook pages in (devguide.run.kernel, issue 39 H19).

mkdocs-jupyter executed every notebook in the ``python3`` kernel, with the builder's
environment, HOME and rights: any page's notebook could read a token and write anywhere
on a contributor's machine, and in CI. These tests run a notebook the way the build does
(nbclient, the kernel spec mkdocs.yml names) and check what a cell can do there.
"""

import os
import sys

import nbformat
import pytest
from mkdocs.exceptions import PluginError
from nbclient import NotebookClient

from devguide import paths
from devguide.mkdocs_plugin.hooks.notebooks_with_i18n import confined_kernel
from devguide.run import kernel, sandbox

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the confinement is Linux's (Landlock, subreaper)")

CELLS = [
    "import os, resource, subprocess, time\n"
    "print(os.environ.get('GH_TOKEN', 'no token'))",
    "print(os.environ['HOME'])",
    "def tries(path):\n"
    "    try:\n"
    "        with open(path, 'w') as f:\n"
    "            f.write('x')\n"
    "        return 'written'\n"
    "    except OSError as exc:\n"
    "        return f'refused {exc.errno}'\n"
    "print(tries({probe!r}))",
    "print(tries(os.path.join(os.environ['HOME'], 'mine.txt')), tries(os.path.join(os.environ['TMPDIR'], 't')))",
    "print(resource.getrlimit(resource.RLIMIT_DATA)[0])",
    # a daemon in a session of its own: it must not outlive the kernel
    "daemon = subprocess.Popen(['sleep', '600'], start_new_session=True)\nprint(daemon.pid)",
]


def texts(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs).strip()


@linux
def test_a_notebook_cell_runs_confined_as_a_block(tmp_path, monkeypatch):
    """A cell does not see the builder's secrets, has a HOME of its own, writes only beneath
    its folder (where Landlock is), has a block's memory limit, and what it starts ends
    with the kernel."""
    monkeypatch.setenv("GH_TOKEN", "hunter2")
    monkeypatch.setenv("JUPYTER_PATH", str(kernel.SPECS))
    probe = paths.BUILD / f"kernel-probe-{os.getpid()}.txt"
    paths.BUILD.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.replace("{probe!r}", repr(str(probe)))) for c in CELLS]
    NotebookClient(nb, kernel_name=kernel.NAME, timeout=120,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    out = [texts(c) for c in nb.cells]
    assert out[0] == "no token", "the kernel sees the builder's environment"
    assert os.path.basename(os.path.dirname(out[1])).startswith(sandbox.PREFIX), out[1]
    assert out[3] == "written written", "a cell cannot write in its own HOME and TMPDIR"
    if sandbox.landlock_abi():
        assert out[2] == "refused 13" and not probe.exists(), f"a cell wrote outside its folder: {out[2]}"
    memory = sandbox.memory_limit()
    if memory:
        assert int(out[4]) == memory
    daemon = int(out[5])
    try:
        os.kill(daemon, 0)
    except ProcessLookupError:
        pass
    else:
        os.kill(daemon, 9)
        pytest.fail("a process a cell started in a session of its own outlived the kernel")
    finally:
        probe.unlink(missing_ok=True)


def test_the_build_refuses_to_execute_notebooks_in_another_kernel(monkeypatch):
    with pytest.raises(PluginError) as caught:
        confined_kernel({"execute": True, "kernel_name": "python3"})
    message = str(caught.value)
    assert message.startswith("mkdocs.yml:") and f"kernel_name: {kernel.NAME}" in message
    confined_kernel({"execute": False, "kernel_name": ""})  # nothing executes: nothing to confine
    monkeypatch.setenv("JUPYTER_PATH", "/elsewhere")
    confined_kernel({"execute": True, "kernel_name": kernel.NAME})
    assert os.environ["JUPYTER_PATH"].split(os.pathsep) == [str(kernel.SPECS), "/elsewhere"]
    confined_kernel({"execute": True, "kernel_name": kernel.NAME})  # once only
    assert os.environ["JUPYTER_PATH"].split(os.pathsep) == [str(kernel.SPECS), "/elsewhere"]


def test_mkdocs_yml_names_the_confined_kernel():
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    config = yaml.load((paths.REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    options = next(p["mkdocs-jupyter"] for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    assert options["execute"] and options["kernel_name"] == kernel.NAME
