"""Reading many runs and real brokers: sweep grids (`sweep_grid`), real `server.log` parsing into
the event schema (`log_parser`), the same on Spark (`spark`), experiments that compare models
(`experiments`), and the `kafkasim` command (`cli`).

May import: `kafkasim.core`, the models and `kafkasim.scenario`. Never the views.
"""

import os


def output_folders(out: str, *names: str) -> None:
    """Create `out` and its subfolders `names`; ValueError (one line, naming `out`) when it cannot be
    a folder: an existing file, a path under a file, no permission."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise ValueError(f"{out}: cannot be used as the output folder (it is a file)")
    try:
        for name in names:
            os.makedirs(os.path.join(out, name), exist_ok=True)
    except OSError as e:
        raise ValueError(f"{out}: cannot be used as the output folder ({e.strerror or e})") from None
