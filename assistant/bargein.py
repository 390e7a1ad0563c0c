"""Barge-in: the user talks over the answer and the assistant stops; its own voice never does that.

While a turn is being answered:
1. the endpointer leaves silence (an onset)         → hold playback at once (stops within a block);
2. the speech lasts `[bargein] min_speech_ms`        → interrupt the turn: LLM, TTS and playback are
   cancelled, memory keeps the reply clipped to the clauses played, and the recognizer, which has
   had the utterance since its pre-roll, goes on with it as the next question;
3. the sound ends sooner (a cough, "mm-hm")          → release the hold: the cut clause is played
   again from its start, so nothing of the answer is lost;
4. barge-in fired but nothing was recognized         → a false interruption: the rest of the answer,
   from the cut clause on, is spoken again (without asking the LLM again).

The assistant's own voice is removed from the microphone by the echo canceller (`audio/echo.py`).
Where the canceller is off, failed to load, or is still adapting, the fallback raises the VAD's bar
while answering: a frame counts as speech only `speaking_threshold_db` above the echo level, which
is tracked from the microphone while the endpointer hears nothing but the assistant.
"""

from __future__ import annotations

from assistant.audio.echo import EchoCanceller
from assistant.config import BargeinConfig
from assistant.vad import Endpointer, State, level_db

ECHO_LEVEL_SMOOTHING = 0.1  # weight of each new block in the echo level's moving average


class BargeIn:
    """The barge-in policy between the listener (which calls it per block) and the pipeline."""

    def __init__(self, cfg: BargeinConfig, pipe, endpointer: Endpointer, echo: EchoCanceller) -> None:
        self.cfg = cfg
        self.pipe = pipe
        self.endpointer = endpointer
        self.echo = echo
        self.echo_db: float | None = None
        self.onset_ns: int | None = None  # speech that started while the assistant was answering
        self.interrupted = None  # the turn this utterance interrupted, once confirmed

    @property
    def gated(self) -> bool:
        """The raised-threshold fallback is needed: answering without a working echo canceller."""
        return self.cfg.enabled and self.pipe.busy and not (self.echo.active and self.echo.converged)

    def before(self, samples, t_ns: int) -> None:
        """Ahead of the endpointer: set its gate, learn the echo level while only the assistant talks."""
        if not self.gated:
            self.endpointer.set_gate(None)
            return
        if self.endpointer.state is State.SILENCE:
            level = level_db(samples)
            self.echo_db = level if self.echo_db is None else self.echo_db + ECHO_LEVEL_SMOOTHING * (
                level - self.echo_db
            )
        self.endpointer.set_gate(self.cfg.speaking_threshold_db)
        self.endpointer.set_reference_level(self.echo_db)

    def speech_started(self, onset_ns: int) -> None:
        if self.cfg.enabled and (self.pipe.busy or self.pipe.hold.is_set()):
            self.onset_ns = onset_ns

    async def after(self, t_ns: int) -> None:
        """After the endpointer: hold on an onset, release after a blip, interrupt on real speech."""
        if not self.cfg.enabled:
            return
        hold, state = self.pipe.hold, self.endpointer.state
        if state is not State.SILENCE and self.pipe.busy and not hold.is_set():
            hold.set()
        elif state is State.SILENCE and hold.is_set():
            hold.clear()  # a blip: the clause plays again
        if self.onset_ns is not None and self.interrupted is None and t_ns - self.onset_ns >= self._min_ns:
            self.interrupted = await self.pipe.interrupt() or False

    @property
    def _min_ns(self) -> int:
        return self.cfg.min_speech_ms * 1_000_000

    async def utterance_ended(self, recognized: bool) -> bool:
        """Whether the utterance that just ended is a turn of its own."""
        onset, interrupted = self.onset_ns, self.interrupted
        self.onset_ns, self.interrupted = None, None
        if onset is None:
            return True  # ordinary speech, the assistant was not answering
        if interrupted is None:
            self.pipe.hold.clear()  # shorter than the barge-in threshold: the answer goes on
            return False
        if not recognized and interrupted:
            await self.pipe.respeak(interrupted)
        return True
