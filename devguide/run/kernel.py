"""The Jupyter kernel the site build runs the notebook pages in, confined as a block
is (issue 39, H19): ``python -m devguide.run.kernel CONNECTION_FILE``.

mkdocs-jupyter executes every notebook page while the site is built (``make build``,
``make serve``, ``make test``'s build). Its kernel used to be the ``python3`` kernel,
with the builder's environment, HOME and rights. Its kernel is now the
``devguide-confined`` spec beside this module (``jupyter/kernels/``; mkdocs.yml names
it, and ``devguide.mkdocs_plugin.hooks.notebooks_with_i18n`` puts the folder on
``JUPYTER_PATH`` and refuses a build that would execute notebooks in another kernel).
The spec starts this module, which

* makes the kernel a folder of its own, named as a block's sandbox is
  (``sandbox.PREFIX`` and this process's pid, so the next run's
  ``sandbox.sweep_stale`` removes it once the kernel has ended), with its HOME,
  TMPDIR and Jupyter runtime folder;
* gives it a copy of the connection file there (ipykernel writes the file it reads);
* starts ``ipykernel`` under ``devguide.run.confine`` with the environment a block
  gets (``sandbox.shell_env``: not the builder's tokens or HOME), a block's memory
  limit (for each process, and checked for all of them together), writes only beneath
  its folder (Landlock, where the kernel has it), a time limit for the whole notebook
  (``TIMEOUT``), and a child subreaper that ends whatever a cell started when the kernel ends.

This process becomes that confinement (``exec``): jupyter_client's signals and its
kill reach it as they would reach a kernel. Interrupts are sent as messages
(``interrupt_mode``), so a SIGINT to the kernel's process group does not arrive twice.
The outputs the build renders are the ones this confined kernel printed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from devguide.run import sandbox

NAME = "devguide-confined"
# the folder to put on JUPYTER_PATH: it holds kernels/devguide-confined/kernel.json
SPECS = Path(__file__).resolve().with_name("jupyter")
# seconds a kernel lives: one notebook's whole run (the slowest takes about a minute on 2 cores)
TIMEOUT = 900


def command(connection_file: str) -> tuple[list[str], dict]:
    """The confined kernel's command line and environment, its folder made."""
    root = Path(tempfile.mkdtemp(prefix=f"{sandbox.PREFIX}{os.getpid()}-kernel-"))
    home, temp, runtime = root / "home", root / "tmp", root / "runtime"
    for folder in (home, temp, runtime):
        folder.mkdir()
    connection = runtime / Path(connection_file).name
    shutil.copyfile(connection_file, connection)
    env = sandbox.shell_env()
    # jupyter_client's own (JPY_PARENT_PID: the kernel knows it has a client, and prints no banner)
    env.update({k: v for k, v in os.environ.items() if k.startswith("JPY_")})
    env.update(HOME=str(home), TMPDIR=str(temp), JUPYTER_RUNTIME_DIR=str(runtime),
               IPYTHONDIR=str(home / ".ipython"), PYTHONIOENCODING="utf-8", **sandbox.thread_share())
    memory = sandbox.memory_limit()
    argv = [sys.executable, "-m", "devguide.run.confine", f"--write={root}", f"--timeout={TIMEOUT}",
            f"--disk={sandbox.disk_limit()}",
            *([f"--memory={memory}"] if memory else []),
            "--", sys.executable, "-m", "ipykernel_launcher", "-f", str(connection)]
    return argv, env


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.exit("usage: python -m devguide.run.kernel CONNECTION_FILE (a Jupyter kernel spec starts it)")
    program, env = command(args[0])
    os.execve(program[0], program, env)


if __name__ == "__main__":
    main()
