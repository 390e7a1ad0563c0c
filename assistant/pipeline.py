"""Wires the stages and owns the turn: start, cancel (barge-in), finish.

    user text ─► AnswerStage (memory window → prompt → LLM tokens; or clock, timers, lists, limits)
              ─► SpeechStage (clauses → piper audio)
              ─► PlaybackStage (audio → device or file) ─► finish_turn

Each stage runs as its own asyncio task joined by bounded queues; blocking work (llama.cpp, piper,
PortAudio writes) runs on each stage's single worker thread, and SQLite on the memory's own thread,
so the event loop never stalls. `interrupt()` is the one road back: it sets the turn's cancel event
(which stops the worker threads between tokens / audio blocks) and broadcasts an `Interrupt` that
makes each stage drop the turn's queued frames.

A voice turn starts ahead of its endpoint (`start_ahead`): the listener's final transcript is ready
EARLY_FINAL_MS after the speech end, the endpoint comes only at `end_silence_ms`, and the LLM and
the first clause's synthesis fill that gap. Such a turn is played, printed and remembered only once
the endpoint confirms it (`confirm`); if the user goes on talking it is dropped (`discard`) and
leaves no trace but a skipped turn number.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from assistant import (
    about_you,
    arithmetic,
    chance,
    clock,
    computer,
    constants,
    courtesy,
    dates,
    dictionary,
    elements,
    forget,
    jokes,
    limits,
    lists,
    places,
    replay,
    rhymes,
    sky,
    spelling,
    units,
    voice,
    wake,
)
from assistant.audio import AudioDeviceError, DeviceNotFoundError
from assistant.config import Config
from assistant.errors import gist
from assistant.frames import (
    AnswerEnd,
    AnswerText,
    ClauseAudio,
    DataFrame,
    EndOfInput,
    Frame,
    Interrupt,
    SpeechDone,
    Turn,
    UserText,
)
from assistant.llm import LocalLlm
from assistant.memory import Memory
from assistant.metrics import LatencyLog, turn_record
from assistant.prompt import build_messages, fit_question, window
from assistant.stage import Stage
from assistant.stopwatch import Stopwatch
from assistant.timer_requests import parse_request
from assistant.timers import Timers
from assistant.tts import ClauseSplitter, PiperTts

log = logging.getLogger(__name__)

MESSAGE_SCAFFOLD_TOKENS = 8  # ChatML around one message's text: <|im_start|>, role, newlines, <|im_end|>
FIRST_AUDIO_WAIT_S = 5.0  # the LLM's longest pause for the first clause's synthesis
ANNOUNCE_POLL_S = 0.1  # s between looks for the end of the answer a due timer waits for
# A barge-in confirms within min_speech_ms + 400 ms of the hold (bargein.py); a hold that lasts this
# long is a listener that stopped hearing (a stalled microphone), and the answer must not hang on it.
MAX_HOLD_S = 3.0
FIRST_SAMPLE_POLL_S = 0.005  # s between looks for a clause's first sample (it comes within ~50 ms)


class Observer(Protocol):
    """What the terminal (or a test) sees of a turn; every method is optional to act on."""

    def answer_piece(self, turn: Turn, text: str) -> None: ...
    def state(self, name: str) -> None: ...
    def turn_done(self, turn: Turn, record: dict) -> None: ...
    def error(self, message: str) -> None: ...
    def warning(self, message: str) -> None: ...


class QuietObserver:
    def answer_piece(self, turn: Turn, text: str) -> None: ...
    def state(self, name: str) -> None: ...
    def turn_done(self, turn: Turn, record: dict) -> None: ...

    def error(self, message: str) -> None:
        log.error("%s", message)

    def warning(self, message: str) -> None:
        log.warning("%s", message)


class Sink(Protocol):
    """Where answer audio goes: a PortAudio device (`audio.devices.Player`) or a file."""

    first_sample_ns: int | None

    def play(self, samples: np.ndarray, rate: int, cancel) -> bool: ...


class AnswerStage(Stage):
    """UserText → store it → bounded memory window → prompt → streamed LLM text."""

    name = "llm"

    def __init__(self, pipeline: Pipeline, llm: LocalLlm) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.llm = llm

    async def process(self, frame: Frame) -> None:
        if not isinstance(frame, UserText):
            return await self.push(frame)
        turn = frame.turn
        text = turn.user_text
        pipe = self.pipeline
        speaker = pipe.tts if pipe.speaks else None
        facts = pipe.user_facts
        answerers = (  # tried in this order, each only if those before had no answer (timers set one)
            ("clock", lambda: clock.answer(text)),
            ("dates", lambda: dates.answer(text, birthday=facts.get(about_you.BIRTHDAY))),
            ("sky", lambda: sky.answer(text)),
            ("timers", lambda: pipe.timers.answer(text)),
            ("stopwatch", lambda: pipe.stopwatch.answer(text)),
            ("replay", lambda: replay.answer(text, pipe.last_answer, pipe.last_heard)),
            ("voice", lambda: voice.answer(text, speaker, pipe.config.tts.length_scale)),
            ("arithmetic", lambda: arithmetic.answer(text)),
            ("units", lambda: units.answer(text)),
            ("spelling", lambda: spelling.answer(text)),
            ("rhymes", lambda: rhymes.answer(text)),
            ("constants", lambda: constants.answer(text)),
            ("dictionary", lambda: dictionary.answer(text)),
            ("places", lambda: places.answer(text)),
            ("elements", lambda: elements.answer(text)),
            ("computer", lambda: computer.answer(text)),
            ("jokes", lambda: jokes.answer(text)),
            ("chance", lambda: chance.answer(text)),
            (
                "courtesy",
                lambda: courtesy.answer(text, facts.get(about_you.NAME), facts.get(about_you.BIRTHDAY)),
            ),
            ("limits", lambda: limits.answer(text)),
        )
        asked, pipe.asked_back = pipe.asked_back_now(), None  # this request answers it, or drops it
        for source, job in (("forget", pipe.forgetting), ("lists", pipe.listing), ("about_you", pipe.naming)):
            if (known := await job(text, asked)) is not None:  # database jobs: not among the above
                turn.answered_by = source
                return await self._answer_here(frame, known)
        for source, answerer in answerers:
            if (known := answerer()) is not None:
                turn.answered_by = source
                return await self._answer_here(frame, known)
        turn.answered_by = "llm"
        messages = await self._prompt(turn, frame.history)
        turn.mark("prompt_built")
        pieces = self.llm.stream(messages, turn.cancel)
        if turn.confirmed.is_set():  # else `Pipeline.confirm` shows it
            self.pipeline.observer.state(self.pipeline.answering_state)
        while (piece := await self._next_piece(turn, pieces)) is not None:
            turn.mark("llm_first_token")
            turn.answer_text += piece
            if turn.confirmed.is_set():  # else `Pipeline.confirm` shows what came so far
                self.pipeline.observer.answer_piece(turn, piece)
            await self.push(AnswerText(turn, piece))
        turn.mark("llm_done")
        stats = self.llm.last_stats
        turn.counters.update(
            prompt_tokens=stats.prompt_tokens,
            reused_tokens=stats.reused_tokens,
            generated_tokens=stats.generated_tokens,
            tokens_per_s=stats.tokens_per_s,
        )
        await self.push(AnswerEnd(turn))

    async def _answer_here(self, frame: UserText, text: str) -> None:
        """A request that one of `process`'s answerers serves (README, "Answers without the LLM"):
        answered at once, without the LLM, which made up the time and the sunset, pretended to set
        timers, to know the weather and to speak slower, repeated half an answer, got sums and
        conversions wrong, could not spell nor flip a coin, made up what words mean and capitals, the
        elements and the battery, took the user's name for its own, and answered "never mind". The
        turn has no LLM marks: none of its time was the LLM's."""
        turn = frame.turn
        if frame.history is None:  # else `Pipeline.confirm` remembers the question
            await self.pipeline.remember("user", turn.user_text)
        turn.answer_text = text
        if turn.confirmed.is_set():  # else `Pipeline.confirm` shows it
            self.pipeline.observer.state(self.pipeline.answering_state)
            self.pipeline.observer.answer_piece(turn, text)
        await self.push(AnswerText(turn, text))
        await self.push(AnswerEnd(turn))

    async def _next_piece(self, turn: Turn, pieces) -> str | None:
        """The LLM's next piece, but not while the first clause is being synthesized: on two cores
        the LLM would take half of what piper needs for the audio the user is waiting for, and it
        generates ~10x faster than speech, so pausing it costs the answer nothing audible."""
        if "first_clause" in turn.marks and not turn.first_audio.is_set():
            await asyncio.to_thread(turn.first_audio.wait, FIRST_AUDIO_WAIT_S)
        return await self.call(next, pieces, None)

    async def _prompt(self, turn: Turn, history: list | None) -> list[dict]:
        if history is not None:  # started ahead of the endpoint: the user text is remembered at confirm
            messages = await self.messages(history, turn.user_text)
        else:
            cfg = self.pipeline.config
            recent = await self.pipeline.remember("user", turn.user_text, recent=cfg.memory.window_turns + 1)
            # The user's new message is the last of `recent`; the window covers what came before it.
            messages = await self.messages(recent[:-1], turn.user_text)
        if messages[-1]["content"] != turn.user_text.strip():
            tokens = await self.call(self.llm.count_tokens, turn.user_text.strip())
            self.pipeline.observer.warning(
                f"your message is {tokens} tokens, more than the model's context holds: it reads "
                "the start and the end (fix: raise [llm] n_ctx to read more)"
            )
        return messages

    async def messages(self, history: list, user_text: str) -> list[dict]:
        """The prompt for `user_text` after the remembered `history`: the same for a turn and for its
        prefill ahead of time (`Pipeline.prepare`), which relies on getting the very same tokens."""
        cfg = self.pipeline.config
        past = await self.call(window, history, cfg.memory, self.llm.count_tokens)
        messages = build_messages(cfg.llm.system_prompt, past, user_text)
        if self._may_not_fit(user_text):
            messages = await self.call(self._fit, messages)
        return messages

    def _fit(self, messages: list[dict]) -> list[dict]:
        """`messages` with room left for the answer's max_answer_tokens: first the oldest remembered
        messages go (the question matters more than what came before it; a window that [memory]
        max_tokens allows may not fit beside a long question, or at all in a small n_ctx), and with
        none left the question keeps its start and end (`fit_question`). On the stage's thread, as
        every other call into llama.cpp, which is not made for several threads."""
        cfg = self.pipeline.config
        system, remembered, question = messages[0], messages[1:-1], messages[-1]

        def over() -> int:
            prompt = [system, *remembered, question]
            return len(self.llm.render(prompt)) + cfg.llm.max_answer_tokens - (cfg.llm.n_ctx - 1)

        dropped = 0
        while remembered and over() > 0:
            remembered = remembered[1:]
            dropped += 1
            while remembered and remembered[0]["role"] != "user":  # no orphaned answer (prompt.window)
                remembered = remembered[1:]
                dropped += 1
        if dropped:
            log.debug("%d remembered messages left out to leave the answer its room", dropped)
        if (excess := over()) > 0:
            text = question["content"]
            cut = fit_question(text, self.llm.count_tokens(text) - excess, self.llm.count_tokens)
            question = {**question, "content": cut}
        return [system, *remembered, question]

    def _may_not_fit(self, user_text: str) -> bool:
        """Whether the prompt with this question might leave the answer less than max_answer_tokens
        of the context, from bounds alone (a token is at least one byte; the window holds at most
        [memory] max_tokens), so an everyday question costs no tokenizing of the whole prompt."""
        cfg = self.pipeline.config
        bound = len(user_text.encode()) + len(cfg.llm.system_prompt.encode()) + cfg.memory.max_tokens
        bound += MESSAGE_SCAFFOLD_TOKENS * (cfg.memory.window_turns + 3) + cfg.llm.max_answer_tokens
        return bound > cfg.llm.n_ctx - 1


class SpeechStage(Stage):
    """Answer text → clauses as soon as they complete → piper audio, one clause at a time."""

    name = "tts"

    def __init__(self, tts: PiperTts, clause_pause_ms: int) -> None:
        super().__init__(queue_size=512)  # tokens arrive faster than clauses are spoken
        self.tts = tts
        self.pause_s = clause_pause_ms / 1000
        self.splitter = ClauseSplitter()
        self.index = 0

    async def process(self, frame: Frame) -> None:
        if isinstance(frame, AnswerText):
            for clause in self.splitter.feed(frame.text):
                await self._speak(frame.turn, clause)
        elif isinstance(frame, AnswerEnd):
            for clause in self.splitter.flush():
                await self._speak(frame.turn, clause)
            self._reset()
            await self.push(SpeechDone(frame.turn))
        else:
            await self.push(frame)

    async def _speak(self, turn: Turn, clause: str) -> None:
        if turn.speaker_error:
            return  # nothing would play it: the LLM gets both cores back
        turn.mark("first_clause")
        try:
            pieces = await self.call(lambda: list(self.tts.synthesize(clause, turn.cancel)))
        finally:
            turn.first_audio.set()  # also on cancel or failure: the LLM must not wait for nothing
        if turn.cancel.is_set() or not pieces:
            return
        turn.mark("tts_first_audio")
        pause = np.zeros(int(self.tts.sample_rate * self.pause_s), np.float32)
        samples = np.concatenate([*pieces, pause])
        await self.push(ClauseAudio(turn, self.index, clause, samples, self.tts.sample_rate))
        self.index += 1

    def _reset(self) -> None:
        self.splitter = ClauseSplitter()
        self.index = 0

    async def on_interrupt(self, frame: Interrupt) -> None:
        self._reset()


class PlaybackStage(Stage):
    """Clause audio → the sink; remembers which clauses were heard in full; ends the turn."""

    name = "playback"

    def __init__(self, pipeline: Pipeline, sink: Sink) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.sink = sink
        self.speaker_warned = ""  # the failure last reported; not again until a clause has played

    async def process(self, frame: Frame) -> None:
        if isinstance(frame, DataFrame):
            await frame.turn.confirmed.wait()  # a turn started ahead of the endpoint waits for it
        if isinstance(frame, ClauseAudio):
            if not frame.turn.speaker_error:
                await self._play(frame)
        elif isinstance(frame, SpeechDone):
            await self.pipeline.finish_turn(frame.turn)
        else:
            await self.push(frame)

    async def _play(self, frame: ClauseAudio) -> None:
        """Play one clause; while the listener holds playback (maybe a barge-in), wait, then go on from
        the last pause before the cut (a cough or "mm-hm" does not cut the reply, and a hold on the
        assistant's own echo costs a short gap, not the clause again). A sink that cannot say how
        much it played (`last.played`) starts the clause again."""
        turn, hold = frame.turn, self.pipeline.hold
        start = 0
        while not turn.cancel.is_set():
            try:
                finished = await self._play_once(turn, frame, start, _Either(turn.cancel, hold))
            except AudioDeviceError as err:  # a vanished speaker costs the sound, not the answer
                turn.speaker_error = str(err)
                if turn.speaker_error != self.speaker_warned:  # no speaker at all: once, not every answer
                    self.speaker_warned = turn.speaker_error
                    self.pipeline.observer.warning(
                        f"{err}; the answer goes on in text, the speaker is tried again at the next"
                    )
                return
            if finished:
                turn.played_clauses.append(frame.text)
                self.speaker_warned = ""
                return
            played = getattr(getattr(self.sink, "last", None), "played", None)
            if played is None:
                start = 0
            else:  # never before this attempt's start: holds that keep coming must not loop forever
                start = resume_point(frame.samples, start + played, frame.sample_rate, floor=start)
            held_until = time.monotonic() + MAX_HOLD_S
            while hold.is_set() and not turn.cancel.is_set():
                if time.monotonic() > held_until:
                    log.warning("playback held for %.0f s without a barge-in; going on", MAX_HOLD_S)
                    hold.clear()
                    break
                await asyncio.sleep(0.01)

    async def _play_once(self, turn: Turn, frame: ClauseAudio, start: int, stop: _Either) -> bool:
        """`sink.play` of the clause from sample `start` on the worker thread. `playback_start` is
        marked as soon as the sink has its first sample out, not when the clause is over: whoever
        watches the turn (the terminal, the benchmarks) sees a one-clause answer sounding while it
        sounds; the clause joins `turn.sounded` then."""
        self.sink.first_sample_ns = None
        samples = frame.samples[start:]
        play = asyncio.ensure_future(self.call(self.sink.play, samples, frame.sample_rate, stop))

        def sounds() -> None:  # once per attempt, as soon as its first sample is out
            at_ns = self.sink.first_sample_ns
            if at_ns is not None and turn.sounded[-1:] != [(at_ns, frame.text)]:
                turn.mark("playback_start", at_ns)
                turn.sounded.append((at_ns, frame.text))

        try:
            while not play.done() and self.sink.first_sample_ns is None:
                await asyncio.wait({play}, timeout=FIRST_SAMPLE_POLL_S)
            sounds()
            return await play
        finally:  # also when a barge-in cancels this task mid-clause: the user heard it start
            play.cancel()  # no-op once done; the thread itself stops at `stop`
            sounds()


REWIND_S = 0.15  # s before a cut searched for a pause to go on from


def resume_point(samples: np.ndarray, cut: int, rate: int, back_s: float = REWIND_S, floor: int = 0) -> int:
    """Where a clause cut at sample `cut` goes on: the start of the quietest 10 ms in the `back_s`
    before the cut (a gap between words, so the word that was cut is heard again whole), not before
    `floor`. resume_point(np.r_[np.ones(300), np.zeros(100), np.ones(600)], 420, 1000) → 300."""
    frame = max(1, rate // 100)
    lo = max(floor, cut - int(back_s * rate))
    n = (cut - lo) // frame
    if n == 0:
        return lo
    energy = np.square(samples[lo : lo + n * frame].astype(np.float64)).reshape(n, frame).mean(axis=1)
    return lo + int(np.argmin(energy)) * frame


class _Either:
    """Stops playback when either event is set (the turn's cancel, the listener's hold)."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.is_set() and time.monotonic() < deadline:
            time.sleep(min(0.005, timeout))
        return self.is_set()


class TurnEndStage(Stage):
    """Muted pipelines (text only) end the turn when the LLM is done."""

    name = "turn-end"

    def __init__(self, pipeline: Pipeline) -> None:
        super().__init__()
        self.pipeline = pipeline

    async def process(self, frame: Frame) -> None:
        if isinstance(frame, AnswerEnd):
            await frame.turn.confirmed.wait()
            await self.pipeline.finish_turn(frame.turn)


ANSWER_WITHIN_S = 30.0  # a question asked back is answered by the next request alone this long after


@dataclass(frozen=True)
class AskedBack:
    """A question the assistant asked back, which the next request alone may answer: "Shall I forget
    our whole conversation?" ("yes"), "What's your name?" ("Sam"), "What should I add to your shopping
    list?" ("milk"). Any other request drops it (`AnswerStage.process`)."""

    about: str  # "forget", "name", "list"
    which: str = ""  # "list": the list's name
    at: float = field(default_factory=time.monotonic)


@dataclass
class Pipeline:
    """The assistant's answering half; `listen.py` feeds it voice, `cli chat` typed text."""

    config: Config
    memory: Memory
    llm: LocalLlm
    tts: PiperTts | None = None
    sink: Sink | None = None
    observer: Observer = field(default_factory=QuietObserver)
    stages: list[Stage] = field(default_factory=list)
    current: Turn | None = None  # the turn being (or last) answered, confirmed
    ahead: Turn | None = None  # a turn started ahead of its endpoint, not confirmed yet
    last_answer: Turn | None = None  # the last finished turn that said something: "say that again"
    last_heard: str = ""  # the user's words in the last finished turn that had any: "what did I say?"
    user_facts: dict[str, str] = field(default_factory=dict)  # `about_you.py`'s: the name, the birthday
    asked_back: AskedBack | None = None  # the question the last answer asked back, if it did
    _done: dict[int, asyncio.Event] = field(default_factory=dict)
    _memory_thread: ThreadPoolExecutor | None = None
    _log_warned: bool = False  # the latency log's failure was reported; not again until it works
    _next_id: int = 1
    _cleanup: asyncio.Task | None = None
    _preparing: asyncio.Task | None = None
    _window_stale: bool = False  # the window changed without the LLM (a clock answer): prefill it
    timers: Timers | None = None  # set at open: the kitchen timers, said aloud when due
    stopwatch: Stopwatch = field(default_factory=Stopwatch)  # "start the stopwatch": while it runs
    _announcing: set = field(default_factory=set)  # their announcements' tasks, until done
    _prepare_text: str = ""  # the newest partial transcript to prefill ...
    _prepared: str = ""  # ... and the last one prefilled (reset by each turn)
    # Set by the listener when the user may be starting to talk over the answer: playback pauses.
    hold: threading.Event = field(default_factory=threading.Event)

    @property
    def busy(self) -> bool:
        """A turn is being answered (thinking or speaking)."""
        return self.current is not None and "turn_end" not in self.current.marks

    @property
    def speaks(self) -> bool:
        return self.tts is not None and self.sink is not None

    @property
    def answering_state(self) -> str:
        return "speaking" if self.speaks else "answering"

    async def open(self) -> None:
        """Load the models in parallel off the loop, open the database on its own thread, start the stages."""
        self._memory_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory")
        builds = [
            self._on_memory_thread(lambda: self.memory.build().claim()),
            asyncio.to_thread(self.llm.build),
            asyncio.to_thread(units.registry),  # 0.3 s: not at the first "how many feet in a mile"
            asyncio.to_thread(dates.load),  # 0.25 s: not at the first "what's the date tomorrow"
            asyncio.to_thread(places.atlas),  # 1.4 s: not at the first "what's the capital of peru"
        ]
        if self.tts is not None:
            builds.append(asyncio.to_thread(self.tts.build))
        results = await asyncio.gather(*builds, return_exceptions=True)
        failed = next((r for r in results if isinstance(r, BaseException)), None)
        if failed is not None:  # let go of the conversation, so this process (or another) can open it again
            await self._on_memory_thread(self.memory.close)
            self._memory_thread.shutdown(wait=True)
            self._memory_thread = None
            raise failed
        # What was loaded lives as long as the process: out of the garbage collector's sight, so that
        # a full collection does not walk it. GeoNames' 125,000 objects (`places.atlas`) made each one
        # a 48-64 ms pause of the event loop and the audio, against 14-24 without them (2026-12-07).
        gc.freeze()
        self.stages = [AnswerStage(self, self.llm)]
        if self.speaks:
            playback = PlaybackStage(self, self.sink)
            # Told at the start: the same failure at the first answer is not said again.
            playback.speaker_warned = await self._open_sink()
            self.stages += [SpeechStage(self.tts, self.config.tts.clause_pause_ms), playback]
        else:
            self.stages.append(TurnEndStage(self))
        for upstream, downstream in zip(self.stages, self.stages[1:], strict=False):
            upstream.downstream = downstream
        for stage in self.stages:
            stage.on_error = self._stage_failed
            stage.start()
        self.latency_log = LatencyLog(self.config.metrics.latency_log_path)
        self.timers = Timers(self._announce_soon, keep=self._keep_timer, drop=self._drop_timer)
        for row in self.timers.restore(await self._on_memory_thread(self.memory.kept_timers)):
            self.observer.warning(
                f"memory database {self.memory.path}: a kept timer is unreadable ({row}); dropped"
            )
        self.user_facts, unreadable = about_you.readable(await self._on_memory_thread(self.memory.facts))
        for key, value in unreadable.items():
            self.observer.warning(
                f"memory database {self.memory.path}: a kept {key} is unreadable ({value!r}); ignored"
            )
        self._prefill_window()

    def _keep_timer(self, row: dict) -> None:
        """A timer, alarm or reminder set: kept in the memory file until it goes off, so a restart
        does not lose it (written on the memory thread; a failed write is a warning)."""
        self._on_memory_thread(self.memory.keep_timer, row).add_done_callback(self._timer_store_failed)

    def _drop_timer(self, key: str) -> None:
        self._on_memory_thread(self.memory.drop_timer, key).add_done_callback(self._timer_store_failed)

    def _timer_store_failed(self, done: asyncio.Future) -> None:
        if not done.cancelled() and (err := done.exception()) is not None:
            self.observer.warning(
                f"memory database {self.memory.path}: cannot keep the timers ({gist(err)}); "
                "they last as long as the assistant runs"
            )

    async def _open_sink(self) -> str:
        """Open the speaker's stream now, not at the first answer, which waited for it: 270-300 ms
        on PulseAudio null sinks nothing else used, 17-110 ms where something recorded the speaker
        (scripts/bench_first_answer.sh, README). A speaker that is not there yet is tried again at
        the first answer; a configured name that matches no device stops here, as a bad microphone
        does. Returns the warning given, or ""."""
        start = getattr(self.sink, "start", None)  # a Player; a file has nothing to open
        if start is None:
            return ""
        try:
            await asyncio.to_thread(start, self.tts.sample_rate)
        except DeviceNotFoundError:
            raise
        except AudioDeviceError as err:
            log.warning("%s; trying again at the first answer", err)
            return str(err)
        return ""

    async def forgetting(self, text: str, asked: AskedBack | None = None) -> str | None:
        """The reply to a request to forget the conversation (a question back), or to the answer to
        that question (`asked`): a "yes" clears the memory. None for any other text (which keeps
        the conversation)."""
        kind = forget.kind_of(text)
        confirming = asked is not None and asked.about == "forget"
        if kind == "forget":
            if not await self._on_memory_thread(self.memory.count):
                return forget.NOTHING
            self.asked_back = AskedBack("forget")
            return forget.ASK
        if confirming and kind == "yes":
            deleted = await asyncio.shield(self._on_memory_thread(self.memory.clear))
            self.last_answer, self.last_heard = None, ""  # "say that again" has nothing to say now
            return forget.done(deleted)
        if confirming and kind == "no":
            return forget.KEPT
        return None

    async def listing(self, text: str, asked: AskedBack | None = None) -> str | None:
        """The reply to a request about a list or the notes (`lists.py`), done in the memory file;
        None for any other text. After "What should I add to your shopping list?" (`asked`), the
        item alone is added."""
        adding_to = asked.which if asked is not None and asked.about == "list" else None
        if (request := lists.parse(text, adding_to)) is None:
            return None
        if request.what == "ask" and request.items == ("add",):
            self.asked_back = AskedBack("list", request.name)
        return await self._in_memory_file(lists.answer, request, "your lists")

    async def naming(self, text: str, asked: AskedBack | None = None) -> str | None:
        """The reply to a request about the user's name or birthday (`about_you.py`), kept in the
        memory file; None for any other text. After "What's your name?" (`asked`), the name alone
        sets it."""
        request = about_you.parse(text, asked is not None and asked.about == "name")
        if request is None:
            return None
        what = {"forget all": "what I know of you"}.get(request.what) or (
            "your birthday" if request.what.endswith("birthday") else "your name"
        )
        reply = await self._in_memory_file(about_you.answer, request, what)
        if reply.endswith(about_you.ASK):
            self.asked_back = AskedBack("name")
        try:  # greetings say the name (`courtesy.py`), dates count to the birthday
            self.user_facts = about_you.readable(await self._on_memory_thread(self.memory.facts))[0]
        except sqlite3.Error:
            pass  # said above, as the answer: they keep what they had
        return reply

    def asked_back_now(self) -> AskedBack | None:
        """The question asked back, while the next request alone may still answer it (ANSWER_WITHIN_S)."""
        asked = self.asked_back
        return asked if asked is not None and time.monotonic() - asked.at < ANSWER_WITHIN_S else None

    async def _in_memory_file(self, answer, request, what: str) -> str:
        """`answer(request, memory)` done on the memory's thread. A file that cannot be written is
        said ("I can't reach `what`"), and the turn goes on."""
        try:
            return await asyncio.shield(self._on_memory_thread(answer, request, self.memory))
        except sqlite3.Error as err:
            self.observer.warning(f"memory database {self.memory.path}: {gist(err)}")
            return f"I can't reach {what}: the memory file failed ({gist(err)})."

    async def remember(self, role: str, text: str, interrupted: bool = False, recent: int = 0):
        """Write one turn on the memory's own thread; optionally read back the newest `recent` turns."""

        def write():
            self.memory.add(role, text, interrupted=interrupted)
            return self.memory.recent(recent) if recent else []

        return await asyncio.shield(self._on_memory_thread(write))

    def _on_memory_thread(self, job, *args) -> asyncio.Future:
        """Every use of the database goes through its one thread. Callers shield writes: cancelling this
        future also cancels the job if the thread has not reached it yet, and a turn would be lost."""
        return asyncio.get_running_loop().run_in_executor(self._memory_thread, job, *args)

    async def submit(self, text: str, marks: dict[str, int] | None = None) -> Turn:
        """Start a turn from the user's final text; earlier marks (speech, ASR) come along."""
        turn = self._new_turn(text, marks)
        self.current = turn
        self.observer.state("thinking")
        await self.stages[0].inbox.put(UserText(turn))
        return turn

    def _new_turn(self, text: str, marks: dict[str, int] | None = None, answer_text: str = "") -> Turn:
        turn = Turn(self._next_id, text, marks=dict(marks or {}), answer_text=answer_text)
        self._next_id += 1
        self._prepared = ""
        turn.mark("turn_start")
        self._done[turn.id] = asyncio.Event()
        return turn

    async def start_ahead(self, text: str) -> Turn | None:
        """Start answering `text` before the endpoint (the listener's early final): the LLM and the
        first clause's synthesis run now; nothing is played, shown or remembered until `confirm`.
        None (nothing started) while a turn is being answered or another is ahead."""
        text = text.strip()
        if self.busy or self.ahead is not None or not text or not self.stages:
            return None
        # a timer is set (the voice, a list, the name changed) once the request is final
        if any(
            change(text) is not None
            for change in (parse_request, voice.kind_of, lists.parse, about_you.parse)
        ):
            return None
        if self.asked_back_now() is not None or (self.timers is not None and self.timers.asking):
            return None  # nor is "Sam" after "What's your name?", "ten minutes" after "For how long?"
        if forget.kind_of(text) == "forget":
            return None  # nor is the conversation forgotten, or asked about, before it is
        history = await self._recent(self.config.memory.window_turns)  # before the user text is in it
        turn = self._new_turn(text)
        turn.confirmed.clear()
        self.ahead = turn
        await self.stages[0].inbox.put(UserText(turn, history))
        return turn

    async def confirm(self, turn: Turn, marks: dict[str, int]) -> bool:
        """The endpoint came and the final text is the one `turn` was started with: remember the
        user text, take the listener's marks, and let the answer be heard. False if the turn ended
        before (its stage failed): the caller submits the text as a new turn."""
        if self.ahead is turn:
            self.ahead = None
        if "turn_end" in turn.marks:
            return False
        turn.marks.update(marks)  # speech and endpoint marks, known now (turn_start may be earlier)
        await self.remember("user", turn.user_text)
        self.current = turn
        answering = "prompt_built" in turn.marks or turn.answer_text  # (a clock answer has no prompt)
        self.observer.state(self.answering_state if answering else "thinking")
        if turn.answer_text:
            self.observer.answer_piece(turn, turn.answer_text)
        turn.confirmed.set()
        return True

    async def discard(self, turn: Turn) -> None:
        """Drop a turn started ahead of the endpoint (the user went on talking): stop its work; it
        leaves nothing in memory or the latency log."""
        if self.ahead is turn:
            self.ahead = None
        if "turn_end" in turn.marks or turn.confirmed.is_set():
            return
        await self._cancel(turn)
        turn.mark("turn_end")
        self._done[turn.id].set()

    async def _recent(self, n: int) -> list:
        return await self._on_memory_thread(self.memory.recent, n)

    def prepare(self, partial: str) -> None:
        """The user is still talking and `partial` is what was recognized so far: prefill the LLM, in
        the background, with the prompt this question will get (`LocalLlm.prefill`), so at the
        endpoint only what changed is left to prefill. Only while idle (an answer owns the model
        otherwise); one prefill at a time, then the newest text."""
        partial = partial.strip()
        if self.busy or self.ahead or not partial or partial == self._prepared or not self.stages:
            return
        self._prepare_text = partial
        if self._preparing is None or self._preparing.done():
            self._preparing = asyncio.create_task(self._prepare(), name="prepare")

    def _prefill_window(self) -> None:
        """Prefill, while idle, the prompt every question begins with: the system prompt and the
        remembered window. At start, so that the first question does not pay for it (a typed one
        waited 1.2 s for its first token with 8 questions and answers remembered, 0.1 s with this;
        `scripts/bench_llm.py --start`), and after an answer the LLM did not write. Asked for while
        a prefill runs, it comes after that one (the window may have changed meanwhile)."""
        self._window_stale = True
        self._prepare_text = ""  # the last question's partial is not the next one's start
        if self._preparing is None or self._preparing.done():
            self._preparing = asyncio.create_task(self._prepare(), name="prefill window")

    async def _prepare(self) -> None:
        """Prefill the newest partial transcript's prompt (or the bare window's, `_prefill_window`),
        and the next while it came meanwhile."""
        answer_stage = self.stages[0]
        try:
            while (
                (self._window_stale or self._prepare_text != self._prepared)
                and not self.busy
                and self.ahead is None
            ):
                self._window_stale, text = False, self._prepare_text
                self._prepared = text
                history = await self._recent(self.config.memory.window_turns)
                messages = await answer_stage.messages(history, text)
                await answer_stage.call(self.llm.prefill, messages)
        except Exception as err:  # only a head start: the turn itself prefills whatever is missing
            log.debug("prefill ahead of the question failed: %s", err)

    async def wait(self, turn: Turn, timeout: float | None = None) -> None:
        await asyncio.wait_for(self._done[turn.id].wait(), timeout)

    async def ask(self, text: str, marks: dict[str, int] | None = None) -> Turn:
        """Submit and wait for the turn to finish (typed chat, scripted runs)."""
        turn = await self.submit(text, marks)
        await self.wait(turn)
        return turn

    async def interrupt(self) -> Turn | None:
        """Barge-in: stop the current turn everywhere at once and record what was heard."""
        turn = self.current
        if turn is None or "turn_end" in turn.marks:
            return None
        await self._cancel(turn)
        self.hold.clear()
        await self.finish_turn(turn)
        return turn

    async def _cancel(self, turn: Turn) -> None:
        """Stop `turn`'s work in every stage: worker threads stop between tokens and audio blocks,
        queued frames are dropped."""
        turn.cancel.set()
        await asyncio.gather(*(stage.interrupt(Interrupt(turn.id)) for stage in self.stages))

    async def respeak(self, interrupted: Turn) -> Turn | None:
        """After a false interruption (nothing recognized): say again what the user did not hear,
        from the cut clause on, without asking the LLM again."""
        rest = replay.unheard(interrupted)
        if not rest or not self.speaks:
            return None
        turn = self.current = self._new_turn("", answer_text=rest)
        turn.answered_by = "respeak"
        await self.stages[1].inbox.put(AnswerText(turn, rest))
        await self.stages[1].inbox.put(AnswerEnd(turn))
        return turn

    def _announce_soon(self, text: str) -> None:
        task = asyncio.create_task(self.announce(text), name="announce")
        self._announcing.add(task)
        task.add_done_callback(self._announcing.discard)

    async def announce(self, text: str) -> Turn:
        """Say `text` as the assistant's own turn, without the LLM (a timer that is due): once the
        answer under way (or started ahead) is over; shown, spoken, remembered and logged as an
        answer is, and interruptible as one."""
        while self.busy or self.ahead is not None:
            await asyncio.sleep(ANNOUNCE_POLL_S)
        turn = self.current = self._new_turn("", answer_text=text)
        turn.answered_by = "timers"
        return await self._say_own(turn)

    async def acknowledge(
        self, heard: str, marks: dict[str, int] | None = None, reply: str = wake.REPLY
    ) -> Turn:
        """The wake phrase alone (`heard`, `wake.py`): "Yes?" at once (or `reply`: going to sleep,
        waking), as a turn that is logged (how soon the assistant answers to its name) but not
        remembered: the LLM's window keeps the conversation, and "say that again" the last answer."""
        turn = self.current = self._new_turn(heard, marks, answer_text=reply)
        turn.answered_by = "wake"
        return await self._say_own(turn)

    async def _say_own(self, turn: Turn) -> Turn:
        """Show and speak `turn`'s answer_text, already written (not the LLM's)."""
        self.observer.state(self.answering_state)
        self.observer.answer_piece(turn, turn.answer_text)
        await self.stages[1].inbox.put(AnswerText(turn, turn.answer_text))
        await self.stages[1].inbox.put(AnswerEnd(turn))
        return turn

    async def finish_turn(self, turn: Turn) -> None:
        """Store the reply (clipped to what was played if interrupted), log latency, wake waiters."""
        if "turn_end" in turn.marks:
            return  # already finished (an interrupt raced the last clause)
        turn.mark("turn_end")
        record = turn_record(turn)  # one reading of `interrupted` for the memory and the log alike
        interrupted, cut = record["interrupted"], turn.cancel.is_set()  # cut: interrupted or failed
        remembered = turn.answered_by != "wake"  # "Yes?" to its name is not part of the conversation
        if turn.answer_text.strip() and not turn.failed and remembered:
            self.last_answer = turn
        if turn.user_text.strip() and remembered:
            self.last_heard = turn.user_text
        heard = (" ".join(turn.played_clauses) if (cut and self.speaks) else turn.answer_text).strip()

        def write() -> OSError | None:
            # An answer cut before any of it was heard is remembered as cut ("…" in the prompt: the
            # model knows it was stopped); a failed one that said nothing leaves no row.
            if (heard or interrupted) and remembered:
                self.memory.add("assistant", heard, interrupted=cut)
            try:
                self.latency_log.append(record)
            except OSError as err:  # the turn is answered and remembered: a lost log line is a warning
                return err
            return None

        # One shielded job on the memory thread: the row and the log line are both written even if this
        # task is cancelled before the thread gets to them (shutdown in the middle of a barge-in).
        written = self._on_memory_thread(write)
        try:
            self._latency_log_failed(await asyncio.shield(written))
            self.observer.turn_done(turn, record)
            self.observer.state("listening")
            if "prompt_built" not in turn.marks and heard and not cut and remembered:
                # Not the LLM's answer (the clock's): the next question would first prefill it, now
                # remembered (+150 ms on the typed turn after "what time is it"). Done now instead.
                self._prefill_window()
        finally:
            if written.done():
                self._done[turn.id].set()
            else:  # cancelled first: waiters wake once the row is in
                written.add_done_callback(lambda _: self._done[turn.id].set())

    def _latency_log_failed(self, err: OSError | None) -> None:
        """Warn of a latency log that cannot be written, once until a line is written again."""
        if err is None:
            self._log_warned = False
        elif not self._log_warned:
            self._log_warned = True
            reason = err.strerror or gist(err)
            self.observer.warning(
                f"latency log {self.latency_log.path}: cannot write it ({reason}); turns go on unlogged"
            )

    async def _stage_failed(self, frame: Frame, err: Exception) -> None:
        """A crash inside one turn: report it in one line, end the turn, keep the assistant alive."""
        message = f"{type(err).__name__}: {err}"
        self.observer.error(message)
        turn = getattr(frame, "turn", None)
        if turn is not None and not turn.failed:
            turn.failed = message
        if turn is not None and turn is self.ahead:
            self._cleanup = asyncio.create_task(self.discard(turn))  # `confirm` then says it failed
        elif turn is not None and turn is self.current:
            # Not awaited here: the failing stage's own task must return before it can be interrupted.
            self._cleanup = asyncio.create_task(self.interrupt())

    async def stop(self) -> None:
        """Finish queued work, stop the stages, release the memory thread. Timers not yet due stay
        kept in the memory file: the next start runs them again."""
        if self.timers is not None:
            self.timers.close()
        for task in list(self._announcing):  # due, but still waiting for an answer to end
            task.cancel()
        if self._preparing is not None:
            await asyncio.gather(self._preparing, return_exceptions=True)
        for stage in self.stages:
            await stage.stop()
        if self._memory_thread is not None:
            await self._on_memory_thread(self.memory.close)
            self._memory_thread.shutdown(wait=True)
        close = getattr(self.sink, "close", None)
        if close is not None:
            close()  # a player's output stream runs until closed


def create(config: Config, *, speak: bool = True, sink: Sink | None = None, observer: Observer | None = None):
    """A pipeline over the configured models; audio goes to `sink` (default: the configured speaker)."""
    if speak and sink is None:
        from assistant.audio.devices import Player

        sink = Player(config.audio)
    return Pipeline(
        config,
        Memory(config.memory),
        LocalLlm(config.llm),
        PiperTts(config.tts) if speak else None,
        sink if speak else None,
        observer or QuietObserver(),
    )


__all__ = ["Pipeline", "AnswerStage", "SpeechStage", "PlaybackStage", "EndOfInput"]
