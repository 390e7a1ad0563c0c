"""Barge-in: the user talks over the answer and the assistant stops; its own voice never does that.

While a turn is being answered (thinking or speaking):
1. the endpointer hears voice (it leaves SILENCE)     → hold playback at once: the player stops
   within a block, so the sound stops well inside 150 ms of the onset;
2. the voice lasts `[bargein] min_speech_ms` from its onset, and goes on AFTER_HOLD_MS after the hold
   stopped playback                                   → interrupt the turn: LLM, TTS and playback are
   cancelled, memory keeps the reply clipped to the clauses played (marked interrupted), and the
   recognizer, which has had the utterance since its pre-roll, goes on with it as the next question;
3. the voice stops sooner (a cough, "mm-hm": RELEASE_MS without voice) → release the hold: the cut
   clause is played again from its start, so nothing of the answer is lost;
4. barge-in fired but nothing was recognized           → a false interruption: the rest of the answer,
   from the cut clause on, is spoken again (without asking the LLM again).

Why the assistant cannot interrupt itself. Its voice reaches the microphone. The echo canceller
(`audio/echo.py`, WebRTC AEC3) takes most of it out, but not all: in the PulseAudio loopback test
its output still had 240-400 ms runs of residual echo that webrtcvad calls speech, and with
`echo_cancel = "off"` (or a library that failed to load, or AEC3 still adapting in the first ~2 s)
the echo is all there. Two things keep it out:

- The echo gate (`EchoEstimate`), always on while something is audible from the speaker, whatever
  the canceller: the player hands every block it writes to `reference()`, stamped when written (the
  output latency before it sounds). A frame of what the endpointer hears counts as voiced only
  `[bargein] speaking_threshold_db` above the echo estimate

      estimate(t) = loudest reference block stamped in [t - ECHO_TAIL_MS - echo_delay_ms, t]
                    + coupling,

  where `coupling` is the COUPLING_PERCENTILE of (heard dB - loudest reference dB) over the last
  HISTORY_FRAMES frames in which only the assistant was audible (the endpointer in SILENCE, no hold).
  It is learnt on the signal the endpointer gets, so it is the raw speaker-to-mic coupling with the
  canceller off (0 dB for a loopback at volume 1.0) and the residual one once AEC3 has converged
  (about -30 dB), and it follows AEC3 as it adapts; before anything is learnt it is 0 dB. A frame is
  learnt only after LEARN_DELAY_MS without a hold, so the onset of the user's voice, which causes a
  hold, is never learnt as echo (else the gate would rise against the user). Between answers nothing
  is audible and the gate is off.
- The hold is its own check: it stops playback, so the echo dies out within the echo tail. Voice
  that goes on AFTER_HOLD_MS after the hold cannot be the assistant; residual echo that slipped
  through the gate ends as a blip, and the hold is released.

Timing: the onset is heard after three voiced 20 ms frames out of five (the endpointer's smoothing),
one capture block and the event loop; the player checks the hold between 20 ms blocks and aborts its
stream, dropping what the device buffered. `scripts/bench_bargein.py` measures onset → speaker silent.
"""

from __future__ import annotations

import threading
from collections import deque

import numpy as np

from assistant.audio.echo import EchoCanceller
from assistant.config import BargeinConfig
from assistant.vad import Endpointer, State, level_db

MS = 1_000_000  # ns per ms
ECHO_TAIL_MS = 150  # ms a reference block (stamped when written) is heard: output latency, echo, reverb
AUDIBLE_DB = -60.0  # dBFS: a quieter reference cannot be heard over a room; the gate is off
HISTORY_FRAMES = 150  # frames (~3 s at 20 ms) of assistant-only audio behind the coupling estimate
MIN_HISTORY = 25  # frames learnt before the estimate replaces INITIAL_COUPLING_DB
INITIAL_COUPLING_DB = 0.0  # dB: until learnt, the echo is taken to be as loud as what is played
COUPLING_PERCENTILE = 99  # of the learnt frames: the loud tail of the echo is what the gate must stop
LEARN_DELAY_MS = 300  # ms a frame waits before it is learnt; a hold in between discards it
RELEASE_MS = 100  # ms without voice that end a hold that did not interrupt (a blip)
AFTER_HOLD_MS = 250  # ms voice must go on after the hold stopped playback: the echo is gone by then


class EchoEstimate:
    """How loud the assistant's own voice can be in what the endpointer hears, from what is played.

    `reference` runs on the playback thread, everything else on the listener's event loop.
    Example: blocks at -20 dBFS stamped up to t, coupling -30 dB → `level(t)` = -50 dBFS; a frame must
    reach -50 + speaking_threshold_db to count as voiced.
    """

    def __init__(self, tail_ms: float = ECHO_TAIL_MS) -> None:
        self.tail_ns = int(tail_ms * MS)
        self._lock = threading.Lock()
        self._blocks: deque[tuple[int, float]] = deque()  # (stamp ns, dBFS) of reference blocks
        self._pending: deque[tuple[int, float]] = deque()  # (mic ns, heard - played dB) not learnt yet
        self._history: deque[float] = deque(maxlen=HISTORY_FRAMES)
        self.coupling = INITIAL_COUPLING_DB

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        """A block about to play (stamped ≤ when it sounds); empty: playback stopped at t_ns."""
        with self._lock:
            while self._blocks and self._blocks[-1][0] >= t_ns:
                self._blocks.pop()  # written ahead, then dropped by the stop: never sounded
            if len(samples):
                self._blocks.append((t_ns, level_db(samples)))

    def played_db(self, t_ns: int) -> float | None:
        """The loudest reference that can be heard in a mic block starting at t_ns; None if none is."""
        with self._lock:
            while self._blocks and self._blocks[0][0] < t_ns - self.tail_ns:
                self._blocks.popleft()
            levels = [db for stamp, db in self._blocks if stamp <= t_ns]
        loudest = max(levels, default=None)
        return loudest if loudest is not None and loudest > AUDIBLE_DB else None

    def learn(self, heard_db: float, played_db: float, t_ns: int) -> None:
        """A frame where only the assistant was audible; learnt once LEARN_DELAY_MS passed without a hold."""
        self._pending.append((t_ns, heard_db - played_db))
        changed = False
        while self._pending and self._pending[0][0] <= t_ns - LEARN_DELAY_MS * MS:
            self._history.append(self._pending.popleft()[1])
            changed = True
        if changed and len(self._history) >= MIN_HISTORY:
            self.coupling = float(np.percentile(self._history, COUPLING_PERCENTILE))

    def discard(self) -> None:
        """A hold: the frames waiting to be learnt may be the user's voice."""
        self._pending.clear()


class BargeIn:
    """The barge-in policy between the listener (which calls it per block) and the pipeline."""

    def __init__(self, cfg: BargeinConfig, pipe, endpointer: Endpointer, echo: EchoCanceller) -> None:
        self.cfg = cfg
        self.pipe = pipe
        self.endpointer = endpointer
        self.echo = echo
        self.estimate = EchoEstimate(ECHO_TAIL_MS + cfg.echo_delay_ms)
        self.onset_ns: int | None = None  # speech that started while the assistant was answering
        self.hold_ns: int | None = None  # mic time of the block that last held playback
        self.interrupted = None  # the turn this utterance interrupted once confirmed (False: none was left)

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        """The player's far end (playback thread): to the echo canceller and to the echo estimate."""
        self.echo.reference(samples, t_ns)
        self.estimate.reference(samples, t_ns)

    def before(self, samples: np.ndarray, t_ns: int) -> None:
        """Ahead of the endpointer: gate it against the echo estimate while the assistant is audible."""
        played = self.estimate.played_db(t_ns) if self.cfg.enabled else None
        if played is None:
            self.endpointer.set_gate(None)
            return
        if self.endpointer.state is State.SILENCE and not self.pipe.hold.is_set():
            self.estimate.learn(level_db(samples), played, t_ns)
        self.endpointer.set_gate(self.cfg.speaking_threshold_db)
        self.endpointer.set_reference_level(played + self.estimate.coupling)

    def speech_started(self, onset_ns: int) -> None:
        if self.cfg.enabled and (self.pipe.busy or self.pipe.hold.is_set()):
            self.onset_ns = onset_ns

    async def after(self, t_ns: int) -> None:
        """After the endpointer: hold on voice, release after a blip, interrupt on confirmed speech."""
        if not self.cfg.enabled:
            return
        hold = self.pipe.hold
        if self._voice(t_ns) and self.pipe.busy and not hold.is_set():
            hold.set()
            self.hold_ns = t_ns
            self.estimate.discard()
        elif not self._voice(t_ns) and hold.is_set():
            hold.clear()  # a blip: the clause plays again
        if self._confirmed():
            self.interrupted = await self.pipe.interrupt() or False

    def _voice(self, t_ns: int) -> bool:
        """The endpointer is in an utterance and heard voice in the last RELEASE_MS."""
        ep = self.endpointer
        return ep.state is not State.SILENCE and t_ns - ep.voiced_until_ns < RELEASE_MS * MS

    def _confirmed(self) -> bool:
        """Speech over the answer that lasted min_speech_ms and outlived the hold's echo."""
        if self.onset_ns is None or self.interrupted is not None:
            return False
        voiced_until = self.endpointer.voiced_until_ns
        held = self.hold_ns if self.hold_ns is not None else self.onset_ns
        return (
            voiced_until - self.onset_ns >= self.cfg.min_speech_ms * MS
            and voiced_until - held >= AFTER_HOLD_MS * MS
        )

    async def utterance_ended(self, recognized: bool) -> bool:
        """Whether the utterance that just ended is a turn of its own."""
        onset, interrupted = self.onset_ns, self.interrupted
        self.onset_ns = self.interrupted = self.hold_ns = None
        if onset is None:
            return True  # ordinary speech, the assistant was not answering
        if interrupted is None:
            self.pipe.hold.clear()  # shorter than the barge-in threshold: the answer goes on
            return False
        if not recognized and interrupted:
            await self.pipe.respeak(interrupted)
        return True
