"""The contract every pipeline stage shares.

The base owns the bounded inbox, the task and the lifecycle; a stage only says what it does with one
frame (`process`). An `Interrupt` cancels the frame in flight and drops every queued `DataFrame`,
so one broadcast stops the whole turn. Blocking model calls run on the stage's own worker thread
(`self.call`), never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from assistant.frames import DataFrame, EndOfInput, Frame, Interrupt

log = logging.getLogger(__name__)
T = TypeVar("T")


class Stage:
    """One step of the pipeline: frames in through `inbox`, out through `push` to `downstream`."""

    name = "stage"

    def __init__(self, queue_size: int = 64) -> None:
        self.inbox: asyncio.Queue[Frame] = asyncio.Queue(queue_size)
        self.downstream: Stage | None = None
        self._task: asyncio.Task | None = None
        self._current: asyncio.Task | None = None
        self._current_frame: Frame | None = None
        # Set by the pipeline: called when `process` raises, so the turn still ends cleanly.
        self.on_error: Callable[[Frame, Exception], Awaitable[None]] | None = None
        self._worker: ThreadPoolExecutor | None = None
        self.error: BaseException | None = None

    # --- what a stage implements -----------------------------------------------------------
    async def process(self, frame: Frame) -> None:
        """Handle one frame; the default passes it on."""
        await self.push(frame)

    async def on_interrupt(self, frame: Interrupt) -> None:
        """Extra clean-up on barge-in, after the frame in flight was cancelled."""

    async def on_stop(self) -> None:
        """Release what the stage holds (devices, models)."""

    # --- what the base provides ------------------------------------------------------------
    async def push(self, frame: Frame) -> None:
        if self.downstream is not None:
            await self.downstream.inbox.put(frame)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking work on this stage's single worker thread (one model, one thread)."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
        return await asyncio.get_running_loop().run_in_executor(self._worker, fn, *args)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def interrupt(self, frame: Interrupt) -> None:
        """Barge-in: cancel the interrupted turn's frame in flight, drop its queued data, clean up."""
        dropped = self._drain_cancelled_frames()
        if self._current is not None and not self._current.done() and _cancelled(self._current_frame):
            self._current.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._current), timeout=2.0)
        await self.on_interrupt(frame)
        log.debug("%s interrupted, dropped %d queued frames", self.name, dropped)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.on_stop()
        if self._worker is not None:
            self._worker.shutdown(wait=True, cancel_futures=True)
            self._worker = None

    async def _run(self) -> None:
        while True:
            frame = await self.inbox.get()
            if _cancelled(frame):
                continue  # queued before the barge-in, arrived after the drain
            self._current_frame = frame
            self._current = asyncio.create_task(self._handle(frame))
            try:
                await self._current
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():
                    raise  # the stage itself is stopping
            if isinstance(frame, EndOfInput):
                return

    async def _handle(self, frame: Frame) -> None:
        try:
            await self.process(frame)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a crash in one turn must not kill the assistant
            self.error = err
            # The observer tells the user in one line; the traceback is for `--verbose`.
            log.debug("%s failed on %s", self.name, type(frame).__name__, exc_info=True)
            if self.on_error is not None:
                await self.on_error(frame, err)

    def _drain_cancelled_frames(self) -> int:
        kept: list[Frame] = []
        dropped = 0
        while not self.inbox.empty():
            frame = self.inbox.get_nowait()
            if _cancelled(frame):
                dropped += 1
            else:
                kept.append(frame)
        for frame in kept:
            self.inbox.put_nowait(frame)
        return dropped


def _cancelled(frame: Frame | None) -> bool:
    """Data of an interrupted (or failed) turn; system frames are never cancelled."""
    return isinstance(frame, DataFrame) and frame.turn.cancel.is_set()
