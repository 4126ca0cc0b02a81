"""The kernel manager every notebook run uses (papermill's `kernel_manager_class`): its client never
waits on a kernel channel longer than POLL_SLICE_S at a time.

Why: nbclient waits for a cell's execute_reply with one asyncio poll of the shell socket that lasts
the cell's whole time limit. pyzmq's asyncio poll watches the socket's edge-triggered ZMQ_FD, and when
that edge is missed the poll ends only at its timeout, whose last non-blocking poll then finds the
reply and the run goes on as if nothing happened. Seen once in CI (chapter 07's explorer cell): the
kernel replied after 0.15 s, papermill waited out its 600 s cell limit, then carried on without error.
Waiting in slices bounds such a stall to a slice; each cell's time limit still holds in full.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client import AsyncKernelManager
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type

#: The longest single poll of a channel, in seconds.
POLL_SLICE_S = 1.0


class SlicedChannel(AsyncZMQSocketChannel):
    """A channel whose `get_msg(timeout)` polls in slices of at most POLL_SLICE_S until `timeout`
    (None: for ever) has passed, then raises Empty as the plain channel does."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SLICE_S if deadline is None else deadline - time.monotonic()
            try:
                return await super().get_msg(timeout=max(0.0, min(POLL_SLICE_S, left)))
            except Empty:
                if deadline is not None and left <= POLL_SLICE_S:
                    raise


class SlicedKernelClient(AsyncKernelClient):
    shell_channel_class = Type(SlicedChannel)
    iopub_channel_class = Type(SlicedChannel)


class SlicedKernelManager(AsyncKernelManager):
    client_factory = Type(SlicedKernelClient)
