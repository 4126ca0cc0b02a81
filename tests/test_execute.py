"""How the book executes its chapters (tools/execute.py): a time limit per chapter, not per cell,
and one line naming the chapter, the cell, the error and the executed copy when a chapter fails."""

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import execute  # noqa: E402


def chapter(folder: Path, *sources: str, limit_s: int | None = None) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": execute.KERNEL, "display_name": "kafkasim", "language": "python"}
    if limit_s is not None:
        nb.metadata["kafkasim"] = {"build_limit_s": limit_s}
    path = folder / "99-test.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_chapter_gets_the_default_limit_or_its_own(tmp_path):
    assert execute.limit_s(chapter(tmp_path, "x = 1")) == execute.CHAPTER_LIMIT_S == 1200
    assert execute.limit_s(chapter(tmp_path, "x = 1", limit_s=5400)) == 5400


@pytest.mark.notebook
def test_a_failing_cell_stops_the_chapter_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(execute, "ROOT", tmp_path)
    notebook = chapter(tmp_path, "x = 1", "raise ValueError('max.poll.records must be at least 1\\nsecond line')")
    copy = tmp_path / "executed" / notebook.name
    with pytest.raises(execute.ChapterFailed) as failed:
        execute.execute(notebook, copy, {})
    # numbered as in the chapter's notebook (the executed copy has papermill's banner cells besides)
    cell_id = nbformat.read(notebook, as_version=4).cells[1].id
    assert str(failed.value) == (f"99-test.ipynb: cell 1 (id {cell_id}) failed: ValueError: second line; "
                                 f"executed copy: executed/failed/99-test.ipynb")
    assert not copy.exists() and (tmp_path / "executed" / "failed" / notebook.name).exists()
    assert not execute.is_fresh(notebook, copy)


@pytest.mark.notebook
def test_a_chapter_may_spend_its_limit_in_one_cell_but_not_more(tmp_path, monkeypatch):
    monkeypatch.setattr(execute, "ROOT", tmp_path)
    copy = tmp_path / "executed" / "99-test.ipynb"
    # One cell of 4 s in a chapter allowed 20 s: a fixed per-cell limit of 3 s would have stopped it.
    execute.execute(chapter(tmp_path, "import time; time.sleep(4)", limit_s=20), copy, {})
    assert copy.exists()
    # Two cells of 4 s each in a chapter allowed 6 s: the second runs out of the chapter's time.
    notebook = chapter(tmp_path, "import time; time.sleep(4)", "time.sleep(4)", "never = 1", limit_s=6)
    with pytest.raises(execute.ChapterFailed) as failed:
        execute.execute(notebook, copy, {})
    assert str(failed.value).startswith(f"99-test.ipynb: cell 1 (id {nbformat.read(notebook, as_version=4).cells[1].id})")
    assert str(failed.value).endswith("failed: the chapter passed its time limit of 6 s; "
                                      "executed copy: executed/failed/99-test.ipynb")


class MissedWakeups:
    """A kernel socket whose poll misses the message's arrival `missed` times (each miss lasts the
    whole poll, as a missed ZMQ_FD edge does), on a fake clock."""

    def __init__(self, missed: int):
        self.missed, self.polls, self.now = missed, [], 0.0

    async def poll(self, timeout_ms):
        self.polls.append(timeout_ms)
        if len(self.polls) <= self.missed:
            self.now += timeout_ms / 1000
            return 0
        return 1


def wait(missed: int, timeout, monkeypatch):
    """`SlicedChannel.get_msg(timeout)` on MissedWakeups(missed): (the message or Empty, the polls)."""
    import asyncio
    from queue import Empty

    import sliced_kernel
    import zmq.asyncio

    socket = MissedWakeups(missed)
    monkeypatch.setattr(sliced_kernel.time, "monotonic", lambda: socket.now)
    with zmq.asyncio.Context() as context, context.socket(zmq.DEALER) as real:
        channel = sliced_kernel.SlicedChannel(real, None)
    channel.socket = socket

    async def recv():
        return {"msg_type": "execute_reply"}

    channel._recv = recv
    try:
        got = asyncio.run(channel.get_msg(timeout=timeout))
    except Empty as e:
        got = e
    return got, socket.polls


def test_a_missed_wakeup_costs_one_poll_slice_not_the_cells_limit(monkeypatch):
    # nbclient waits for execute_reply with get_msg(timeout=<the cell's limit>): one poll of 600 s
    assert wait(2, 600, monkeypatch) == ({"msg_type": "execute_reply"}, [1000, 1000, 1000])
    # the iopub wait has no limit: it polls in slices for ever
    assert wait(3, None, monkeypatch) == ({"msg_type": "execute_reply"}, [1000] * 4)


def test_a_sliced_wait_still_ends_at_its_timeout_with_empty(monkeypatch):
    from queue import Empty

    got, polls = wait(99, 2.5, monkeypatch)
    assert isinstance(got, Empty) and polls == [1000, 1000, 500]
    got, polls = wait(99, 1, monkeypatch)
    assert isinstance(got, Empty) and polls == [1000]
    got, polls = wait(99, 0, monkeypatch)
    assert isinstance(got, Empty) and polls == [0]


def test_every_notebook_run_uses_the_sliced_channels():
    import sliced_kernel

    client = sliced_kernel.SlicedKernelManager(kernel_name=execute.KERNEL).client()
    assert isinstance(client, sliced_kernel.SlicedKernelClient)
    assert client.shell_channel_class is client.iopub_channel_class is sliced_kernel.SlicedChannel
