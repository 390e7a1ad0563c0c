"""Listening: audio blocks → VAD endpointing → streaming recognizer → (wake phrase) → the pipeline's turn.

Audio reaches the recognizer *while* the user speaks (the VAD hands over pre-roll and every frame
after a confirmed onset), so the final transcript is ready EARLY_FINAL_MS after the speech end,
before the endpoint fires; the answer starts then (`Pipeline.start_ahead`) and is let out at the
endpoint, or dropped if the user goes on. The recognizer runs on its own worker thread; the event
loop only moves blocks around.

`run_live` listens on the microphone; `run_files` reads a WAV at real-time pace (or `--fast`) and
writes the answers to a WAV, through exactly the same listener and pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from assistant import pipeline as pipeline_mod
from assistant import wake
from assistant.asr.recognizer import FLUSH_MS, StreamingRecognizer
from assistant.audio.echo import make_echo_canceller
from assistant.audio.files import read_audio, write_wav
from assistant.bargein import BargeIn
from assistant.config import Config
from assistant.console import Console
from assistant.frames import Turn, now_ns
from assistant.vad import Endpointer, SpeechAudio, SpeechEnd, SpeechStart

log = logging.getLogger(__name__)
SAMPLE_RATE = 16_000
NS_PER_S, NS_PER_MS = 1_000_000_000, 1_000_000
FEED_BLOCK_S = 0.02  # file input is fed in 20 ms blocks, like a microphone callback
# ms of silence after the speech end before the final transcript is taken and the answer started
# (`Listener._prepare`): the speech end may still move up to the VAD's 100 ms smoothing window; a
# pause this long mid-question costs one peek (a chunk or two of recognizer time) and an answer
# started for nothing, both thrown away when the user goes on.
EARLY_FINAL_MS = 120


INPUT_LOST = ()  # in `Listener.blocks`: the microphone failed (a block is a 3-tuple, the end None)


class Listener:
    """Consumes 16 kHz blocks, endpoints them, transcribes while the user speaks, submits turns."""

    def __init__(
        self, cfg: Config, pipe: pipeline_mod.Pipeline, console: Console, timed: bool = True
    ) -> None:
        self.cfg = cfg
        self.pipe = pipe
        self.console = console
        # False: the blocks' stamps are not real time (a file fed faster than real time), so a turn
        # gets no speech marks: speech end → answer would time a person who was not there
        self.timed = timed
        # (cleaned block, capture time, the linear echo filter's output of it or None)
        self.blocks: asyncio.Queue[tuple[np.ndarray, int, np.ndarray | None] | tuple[()] | None] = (
            asyncio.Queue()
        )
        self.endpointer = Endpointer(cfg.vad)
        self.recognizer = StreamingRecognizer.from_settings(cfg.asr)
        self._asr_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="asr")
        self.echo = make_echo_canceller(
            cfg.bargein.echo_cancel if cfg.bargein.enabled else "off",
            cfg.bargein.echo_delay_ms,
            onset_detector=cfg.bargein.onset_detector,
        )
        self.bargein = BargeIn(cfg.bargein, pipe, self.endpointer, self.echo)
        self.bargein.transcribe = lambda samples: self._asr(self.recognizer.transcribe_apart, samples)
        self.wake = wake.WakeGate(cfg.wake)
        self.not_addressed = 0  # utterances let go for want of a wake phrase
        # the last turn seen ended, and the capture time of the first block after its end: the
        # follow-up window's start on the blocks' own clock (a file's, fed fast, is not real time)
        self._ended: Turn | None = None
        self._answer_end_ns: int | None = None
        self._marks: dict[str, int] = {}
        # (speech end, final text taken EARLY_FINAL_MS after it, when it was ready)
        self._early: tuple[int, str, int] | None = None
        self._ahead: Turn | None = None  # the answer started on that final, held until the endpoint
        self.turns: list = []

    async def build(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._asr_thread, self.recognizer.build)
        self.endpointer.build()
        if unknown := wake.unknown_words(self.cfg):  # the assistant would never answer
            self.console.warning(wake.describe_unknown(self.cfg, unknown))

    def feed_threadsafe(self, loop: asyncio.AbstractEventLoop, samples: np.ndarray, t_ns: int) -> None:
        """Called from the capture thread: cancel the echo of our own voice there (the canceller
        wants one thread), then hand the block to the loop without blocking PortAudio."""
        cleaned, linear = self.echo.process_both(samples, t_ns)
        if len(cleaned):
            loop.call_soon_threadsafe(self.blocks.put_nowait, (cleaned, t_ns, linear))

    def input_lost_threadsafe(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called from the capture thread when the microphone fails (it is reopened with back-off)."""
        loop.call_soon_threadsafe(self.blocks.put_nowait, INPUT_LOST)

    async def run(self) -> None:
        """Until a None block arrives: endpoint, transcribe, submit; watch for barge-in."""
        while (item := await self.blocks.get()) is not None:
            if item is INPUT_LOST:
                await self.input_lost()
            else:
                await self.accept(*item)

    async def input_lost(self) -> None:
        """The microphone failed: a question being asked is answered from what was heard (it waited
        for the device to come back, forever if it did not)."""
        for event in self.endpointer.input_lost():
            await self._on_event(event)

    async def accept(self, samples: np.ndarray, t_ns: int, linear: np.ndarray | None = None) -> None:
        """One block, its first sample captured at `t_ns` (and the linear echo filter's output of
        it, for the barge-in onset detector and, over the answer, the recognizer): barge-in,
        endpointing, recognition, turns."""
        current = self.pipe.current
        if current is not None and current is not self._ended and "turn_end" in current.marks:
            self._ended, self._answer_end_ns = current, t_ns
        self.bargein.before(samples, t_ns, linear)
        heard = self.bargein.heard(samples, linear, t_ns)
        for event in self.endpointer.accept(samples, t_ns, heard):
            await self._on_event(event)
        await self.bargein.after(t_ns)

    async def _asr(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._asr_thread, fn, *args)

    async def _on_event(self, event) -> None:
        if isinstance(event, SpeechStart):
            self._marks = {"speech_start": event.t_ns}
            self._early = None
            self.bargein.speech_started(event.t_ns)
            self.console.state("hearing")
            await self._asr(self.recognizer.reset)
            self._show(await self._asr(self.recognizer.accept, event.audio))
        elif isinstance(event, SpeechAudio):
            partial = await self._asr(self.recognizer.accept, event.samples)
            self._show(partial)
            await self._prepare(partial, event)
        elif isinstance(event, SpeechEnd):
            await self._final(event)

    async def _prepare(self, partial: str, event: SpeechAudio) -> None:
        """The LLM reads the question while it is still being asked: each partial transcript is
        prefilled, and once EARLY_FINAL_MS of silence follow the speech end, the final one, taken
        ahead of the endpoint (`peek_final`) with silence in place of the rest of end_silence_ms (so
        it sees as much after the speech as the final at the endpoint would), starts the answer.
        If the speech end holds until the endpoint, that is the final and the answer has had
        ~180 ms; if the user goes on, the answer is dropped and the partials go on."""
        frame_end_ns = event.t_ns + len(event.samples) * NS_PER_S // SAMPLE_RATE
        silent_ms = (frame_end_ns - event.speech_end_ns) // NS_PER_MS
        if silent_ms < EARLY_FINAL_MS:
            await self._drop_ahead()  # voice again: the question goes on
            if request := self._request(partial):
                self.pipe.prepare(request)
        elif self._early is None or self._early[0] != event.speech_end_ns:
            await self._drop_ahead()
            flush_ms = max(0, self.cfg.vad.end_silence_ms - silent_ms) + FLUSH_MS
            text = await self._asr(self.recognizer.peek_final, flush_ms)
            self._early = (event.speech_end_ns, text, now_ns())
            if not (request := self._request(text)) or wake.is_sleep(request):
                return  # not said to the assistant, its name alone, "stop listening": nothing to start
            self._ahead = await self.pipe.start_ahead(request)
            if self._ahead is None:  # an answer is playing (the user talks over it): prefill only
                self.pipe.prepare(request)
        # else: the answer is under way; the partials of the silence after it would undo that

    def _request(self, text: str) -> str | None:
        """What `text`, heard in the utterance under way, asks the assistant (`WakeGate.request`):
        None where it is not said to it, "" for the wake phrase alone."""
        spoken = self._marks.get("speech_start", now_ns())
        return self.wake.request(text, spoken, self._answer_end_ns, self.pipe.busy)

    async def _drop_ahead(self) -> None:
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            await self.pipe.discard(ahead)

    def _show(self, partial: str) -> None:
        if partial:
            self.console.partial(partial)

    async def _final(self, event: SpeechEnd) -> None:
        self._marks.update(speech_end=event.t_ns_speech_end, endpoint=event.t_ns_endpoint)
        early, self._early = self._early, None
        if early is not None and early[0] == event.t_ns_speech_end:
            text, self._marks["asr_final"] = early[1], early[2]  # taken EARLY_FINAL_MS after this speech end
            await self._asr(self.recognizer.reset)
        else:  # the speech end moved after the early final (or the utterance hit max_utterance_s)
            text = await self._asr(self.recognizer.finalize)
            self._marks["asr_final"] = now_ns()
            await self._drop_ahead()  # started on a text that is not the final
        text = text.strip()  # a lone space is nothing heard
        # False: talk over the answer too short to count (the answer went on), or a stop phrase
        a_turn = await self.bargein.utterance_ended(text, event.t_ns_speech_end)
        if not a_turn or not text:
            await self._drop_ahead()
            if a_turn or not self.pipe.busy:
                self.console.state("listening")  # nothing recognized, or the answer was stopped
            return
        request = self._request(text)
        if request is None:  # no wake phrase (`[wake] phrases`), or asleep: someone else was spoken to
            await self._drop_ahead()
            self.not_addressed += 1
            self.console.not_addressed(text, asleep=self.wake.asleep)
            self.console.state("listening")
            return
        woke, self.wake.asleep = self.wake.asleep, wake.is_sleep(request)  # "stop listening"
        self.console.final(text)
        marks = self._marks if self.timed else {}
        if self.wake.asleep or not request:  # "stop listening", or the wake phrase alone
            await self._drop_ahead()  # (none is started ahead for either)
            reply = wake.ASLEEP if self.wake.asleep else wake.AWAKE if woke else wake.REPLY
            self.turns.append(await self.pipe.acknowledge(text, marks, reply))
            return
        ahead, self._ahead = self._ahead, None
        if ahead is not None and await self.pipe.confirm(ahead, marks):
            self.turns.append(ahead)
        else:
            self.turns.append(await self.pipe.submit(request, marks))

    async def drain(self, timeout: float = 120.0) -> None:
        """Wait for every submitted turn to finish."""
        for turn in self.turns:
            await self.pipe.wait(turn, timeout)

    def close(self) -> None:
        self._asr_thread.shutdown(wait=True, cancel_futures=True)


class FileSink:
    """Answers into memory, written as one WAV at the end; paced like a device unless `fast`."""

    def __init__(self, fast: bool) -> None:
        self.fast = fast
        self.rate: int | None = None
        self.pieces: list[np.ndarray] = []
        self.first_sample_ns: int | None = None

    def play(self, samples: np.ndarray, rate: int, cancel: threading.Event) -> bool:
        self.rate = rate
        block = max(1, int(rate * FEED_BLOCK_S))
        for start in range(0, len(samples), block):
            if cancel.is_set():
                return False
            if self.first_sample_ns is None:
                self.first_sample_ns = now_ns()
            self.pieces.append(samples[start : start + block])
            if not self.fast:
                cancel.wait(FEED_BLOCK_S)
        return True

    def write(self, path: Path) -> float:
        audio = np.concatenate(self.pieces) if self.pieces else np.zeros(0, np.float32)
        write_wav(path, audio, self.rate or 22050)
        return len(audio) / (self.rate or 22050)


async def run_files(cfg: Config, input_path: Path, output_path: Path | None, fast: bool = False) -> int:
    """`assistant run --input q.wav [--output a.wav] [--fast]`: scripted use, same pipeline as live."""
    audio = read_audio(input_path)
    # Trailing silence lets the endpoint fire after the last word.
    tail_s = cfg.vad.end_silence_ms / 1000 + 0.5
    audio = np.concatenate([audio, np.zeros(int(SAMPLE_RATE * tail_s), np.float32)])
    console = Console()
    sink = FileSink(fast) if output_path else None
    pipe = pipeline_mod.create(cfg, speak=True, sink=sink, observer=console)
    listener = Listener(cfg, pipe, console, timed=not fast)
    await asyncio.gather(pipe.open(), listener.build())
    try:
        await _feed_file(listener, audio, fast)
        await listener.drain()
    finally:
        listener.close()
        await pipe.stop()
    if not listener.turns:  # and no empty answers file: "wrote a.wav (0.00 s of answers)" misled
        why = "began with a wake phrase ([wake] phrases)" if listener.not_addressed else "recognized"
        print(f"assistant: no question {why} in {input_path}", file=sys.stderr)
        return 1
    if output_path and sink is not None:
        seconds = sink.write(output_path)
        print(f"wrote {output_path} ({seconds:.2f} s of answers)")
    return 0


async def _feed_file(listener: Listener, audio: np.ndarray, fast: bool) -> None:
    """Hand the file to the listener in 20 ms blocks stamped on the file's own clock (the endpointer
    measures silence with it). Real time: at a microphone's pace, so the next question may talk over
    an answer. Fast: as fast as they are handled, one turn at a time (the file's clock stops while
    the answer plays, so the next question waits for it)."""
    block = int(SAMPLE_RATE * FEED_BLOCK_S)
    origin_ns = now_ns()
    for i in range(0, len(audio), block):
        t_ns = origin_ns + i * NS_PER_S // SAMPLE_RATE
        if not fast:  # a microphone delivers a block once its last sample is in
            await asyncio.sleep(max(0.0, (t_ns - now_ns()) / 1e9 + FEED_BLOCK_S))
        turns = len(listener.turns)
        await listener.accept(audio[i : i + block], t_ns)
        if fast and len(listener.turns) > turns:
            waited_ns = now_ns()
            await listener.pipe.wait(listener.turns[-1], 120.0)
            origin_ns += now_ns() - waited_ns


async def run_live(cfg: Config, on_ready: Callable[[Listener], None] | None = None) -> int:
    """`assistant run`: the microphone in, the speaker out, until Ctrl-C (or the task is cancelled).
    Completed turns are kept. `on_ready(listener)` is called once the microphone is open (tests and
    benches watch the pipeline through it)."""
    from assistant.audio.devices import Capture, Player

    console = Console()
    player = Player(cfg.audio)
    pipe = pipeline_mod.create(cfg, speak=True, sink=player, observer=console)
    listener = Listener(cfg, pipe, console)
    player.reference = listener.bargein.reference  # what we play: the canceller and the echo gate
    await asyncio.gather(pipe.open(), listener.build())
    loop = asyncio.get_running_loop()
    capture = Capture(
        cfg.audio,
        lambda samples, t_ns: listener.feed_threadsafe(loop, samples, t_ns),
        on_error=lambda _message: listener.input_lost_threadsafe(loop),
    )
    capture.start()
    console.state("listening")
    if on_ready is not None:
        on_ready(listener)
    try:
        await listener.run()
    except asyncio.CancelledError:
        pass
    finally:
        capture.stop()
        with contextlib.suppress(Exception):
            await pipe.interrupt()
        listener.close()
        await pipe.stop()
        player.close()
    return 0
