"""Reading many runs and real brokers: sweep grids (`sweep_grid`), real `server.log` parsing into
the event schema (`logs`, formerly `log_parser`), the same on Spark (`spark`), experiments that compare models
(`experiments`), why a group rebalanced, named from its logs (`diagnose`), and the `kafkasim` command (`cli`).

May import: `kafkasim.core`, the models and `kafkasim.scenario`. Never the views.
"""

import os
import re

from kafkasim.core.errors import ConfigError


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


def local_path(path: str, what: str) -> str:
    """An absolute local path for executors, which run in another working directory: `file:` URIs are
    read as paths; other URIs (s3a:, hdfs:, ...) are refused, since executors read and write with
    Python's file API (mount such storage on every node instead)."""
    path = os.fspath(path)
    m = re.match(r"([A-Za-z][\w+.-]*):(.*)", path)
    if m and len(m.group(1)) > 1:
        if m.group(1).lower() != "file":
            raise ConfigError(f"{what} {path}: executors read and write with Python's file API, so give a path on a "
                              f"file system every node mounts (a {m.group(1)}: URI cannot be used)")
        path = re.sub(r"^//(localhost)?(?=/)", "", m.group(2))
    return os.path.abspath(path)


def write_parquet_atomically(table, path: str) -> str:
    """Write a Parquet file under a hidden temporary name, then rename it: a reader sees the whole
    file or none of it, and Spark and pyarrow never read hidden names (a killed run's leftovers,
    which the next sweep or parse removes)."""
    import pyarrow.parquet as pq

    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp)
    os.replace(tmp, path)
    return path
