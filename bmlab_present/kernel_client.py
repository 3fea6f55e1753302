"""The kernel client of ``bmlab-present``, ``make present`` and ``make notebooks``: waits in
0.5 s slices.

nbclient waits for a cell's reply in one unbounded poll, whose wake-up pyzmq can miss on a
busy machine: a Voila page then hangs at "Executing 1 of 2" (CONTRIBUTING, "Presentation
mode"). Here a missed wake-up costs at most 0.5 s.
"""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type

#: The import path Voila and nbconvert are given (``--KernelManager.client_class=...``).
CLIENT = "bmlab_present.kernel_client.SlicedKernelClient"


class _SlicedChannel(AsyncZMQSocketChannel):
    async def get_msg(self, timeout: float | None = None) -> dict:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 0.5 if end is None else min(0.5, end - time.monotonic())
            if await self.socket.poll(max(1, int(1000 * left))):
                return await self._recv()
            if end is not None and time.monotonic() >= end:
                raise Empty


class SlicedKernelClient(AsyncKernelClient):
    """Kernel client that waits for a message in 0.5 s slices, each ending in a real poll."""

    shell_channel_class = Type(_SlicedChannel)
    iopub_channel_class = Type(_SlicedChannel)
