"""Register the Jupyter kernel "kafkasim" for the Python running this script.

The kernelspec goes into this environment (--sys-prefix), so JupyterLab and papermill
started from the same environment find it by name, and nothing is written to ~/.local.

The kernel starts with capture_fd_output=False: otherwise everything the JVM behind
PySpark writes to its stdout/stderr file descriptors lands in the notebooks as output.

Usage: .venv/bin/python tools/register_kernel.py   (make venv does this)
"""

import json
import sys
from pathlib import Path

from ipykernel.kernelspec import install

NAME = "kafkasim"
DISPLAY_NAME = "Python 3 (kafkasim)"
EXTRA_ARGV = ["--IPKernelApp.capture_fd_output=False"]


def main() -> None:
    kernel_dir = Path(install(kernel_name=NAME, display_name=DISPLAY_NAME, prefix=sys.prefix))
    spec_file = kernel_dir / "kernel.json"
    spec = json.loads(spec_file.read_text())
    spec["argv"] += [arg for arg in EXTRA_ARGV if arg not in spec["argv"]]
    spec_file.write_text(json.dumps(spec, indent=1) + "\n")
    print(f"registered kernel {NAME!r} in {kernel_dir}")


if __name__ == "__main__":
    main()
