"""Barge-in: the user talks over the answer and the assistant stops; its own voice never does that.

While a turn is being answered (thinking or speaking), per 20 ms block after the endpointer:
1. voice may be starting (a frame webrtcvad calls voiced, through the echo gate below: HOLD_FRAMES
   in the endpointer's 100 ms smoothing window, the newest among them; or a voiced frame of the
   linear echo filter's output through its own, higher gate: `OnsetDetector`, which hears the
   onset that AEC3's suppressor holds back)
                                                     → hold playback: the player checks the hold
   every 5 ms and aborts its stream, dropping what the device buffered, then starts it again;
2. the voice lasts `[bargein] min_speech_ms` from its onset and goes on AFTER_HOLD_MS after the hold
                                                     → interrupt the turn: LLM, TTS and playback are
   cancelled, memory keeps the reply clipped to the clauses played (marked interrupted), and the
   recognizer, which has had the utterance since its pre-roll, goes on with it as the next question;
   or the utterance ends sooner ("Stop."), lasted min_speech_ms and was recognized as words
                                                     → the same, when it ends (`utterance_ended`);
                                                       a stop phrase alone asks nothing;
3. the voice stops sooner (a cough, "mm-hm", an echo burst): RELEASE_MS without a voiced frame
   after what played before the hold can no longer be heard (`_echo_gone`), so with the gate off,
   and no utterance in progress
                                                     → release the hold: playback goes on from the
   last pause before the cut (`pipeline.resume_point`), so nothing of the answer is lost;
   unless what the recognizer got over the hold is a stop phrase alone (`held_words`)
                                                     → the answer ends: "Stop." said as a clause
                                                       starts is over before the gate, which stands
                                                       at the echo until it dies out, lets any of it
                                                       through;
   a floor on the gates (after a move, below) can hide such a word whole, with no hold at all: as
   the floor ends, if a block under it stood over the gate the learnt echo estimate alone would set,
   the recognizer hears the floor's stretch (`floor_words`); a stop phrase alone that the answer's
   clauses sounding then do not say (`_says`), and that is not its echo (`_own_echo`)
                                                     → the answer ends. The echo the floor is raised
                                                       for stands as high over the learnt gate as
                                                       such a word (28-42 dB against 28-41, bench):
                                                       only the words tell them apart;
4. barge-in fired but nothing was recognized         → a false interruption: the rest of the answer,
   from the cut clause on, is spoken again (without asking the LLM again).

Why the assistant does not interrupt itself. Its voice reaches the microphone. The echo canceller
(`audio/echo.py`, WebRTC AEC3) takes most of it out, but not all: whenever the echo's delay moves
(a player underrun; output and input devices on different clocks; in the tests, a loopback that
re-adjusts its rate, `Pulse.loopback(adjust_s=...)`) its output has bursts of residual echo (around
100 ms, up to the echo's full level) that webrtcvad calls speech while AEC3 re-converges; with
`echo_cancel = "off"` (or a library that failed to load) all of the echo is there, and AEC3 needs
~2 s to converge (`converged`). One mechanism covers all of these cases, so `converged` is not
consulted:

- The echo gate (`EchoEstimate`), on whenever something is audible from the speaker: the player
  hands every block its running stream plays, silence too, to `reference()` (echo canceller and
  gate), stamped by the stream's sample count, so the delay to the echo stays fixed (see
  `audio.devices.Player`). A frame of what the endpointer
  hears counts as voiced only `[bargein] speaking_threshold_db` above the echo estimate

      estimate(t) = loudest reference block stamped in [t - ECHO_TAIL_MS - late, t] + coupling,
      late        = max(echo_delay_ms, the echo's tracked delay behind its stamps - DELAY_IN_TAIL_MS)

  where `coupling` (see `EchoEstimate`) is learnt on the very signal the endpointer gets: about 0 dB
  for a loopback at volume 1.0 with the canceller off, -40 to -55 dB once AEC3 has converged; it
  follows AEC3 as it adapts, starts at 0 dB, and is learnt apart for the first START_MS of each
  clause, where AEC3 leaks more. The user's voice is kept out of what is learnt. After a hold that
  ended as a blip, the coupling is taken as at least RESUME_COUPLING_DB for RESUME_MS: such a hold
  says the echo path has just moved, and AEC3 lets the echo through in further bursts for a second
  or two while it re-converges (measured with the re-adjusting loopback: heard minus played up to
  about 0 dB at p90 for 0.1-2.5 s after such a hold, with or without the stream restart a hold
  causes). Without this floor each resume held playback again, and a clause could be held, rewound
  and resumed for minutes. With a fixed echo delay such holds are rare, and so is the floor. The
  same floor covers the first RESTART_MS of sound after the output stream restarted (a hold, an
  interruption, a stall: the player aborts the stream), for a restarted stream's sound lies a few
  ms off the old one's against its stamps: AEC3 leaks while it learns the new delay. In the
  barge-in bench nearly every answer after an interruption was held falsely 0.1-0.9 s in (then the
  resume floor slowed the next barge-in: p95 1.4 s); with it, 1 false hold in 12 barge-ins. A
  barge-in in that first 1.5 s of an answer has to be louder (at the echo's played level) to hold
  at once. A clause that begins within that 1.5 s keeps the floor for its own START_MS: AEC3,
  still finding the delay, leaks most there.
- The hold is its own check: it stops playback, so the echo dies out within the echo tail. Voice that
  goes on AFTER_HOLD_MS after the hold cannot be the assistant's; residual echo that slipped through
  the gate ends as a blip, and the hold is released, but only once the echo tail of what played
  before the hold is over (`_echo_gone`) and RELEASE_MS passed after that without voice. Until the
  echo is over the gate still stands at the echo's level and AEC3's suppressor still holds the
  user's voice down as double talk, so frames under the gate say nothing about whether the user
  stopped; and a question such as "Wait, tell me ..." pauses after its first word. Releasing on
  either resumed playback under a user still talking, the echo held their voice down again, and
  each new hold pushed the interruption AFTER_HOLD_MS further: in the barge-in bench (40 barge-ins,
  `--details`), 7 of the 9 not stopped within 300 ms had such a release first. Counting RELEASE_MS
  from the last voiced frame instead (until 2026-11-25) released in the ~0.4 s pause after "Wait,"
  or "Stop." in 4 of the 11 barge-ins slower than 150 ms in two bench runs of 30 (README). So a
  false hold (a cough, an echo burst) is a pause of about 0.57 s (the bench's median). ECHO_TAIL_MS
  and AFTER_HOLD_MS leave room for echo that is still on its way when playback stops, and both grow
  with the echo's tracked delay (`late` above): a Bluetooth speaker adds 150-300 ms, and when
  PulseAudio is starved of CPU for a moment the tests' module-loopback keeps the time it lost (25
  ms behind the stamps became 153 ms after the daemon was stopped for 150 ms; a bench run beside
  three busy loops reached 276 ms), where echo past fixed windows cut answers (README, "under
  load"). Until the tracker has found a delay that moved (a second or more of sound), the windows
  are the old ones. An echo path that moves mid-answer, where AEC3 lets the echo through whole
  until it has found the new path and the gate, learnt on what it let through before, takes it for
  the user, is caught by what the canceller's output is: the echo of what played (`_own_echo`).

Timing (scripts/bench_bargein.py, onset in the mic → speaker silent): the first voiced frames come
through AEC3 40-150 ms after the onset of speech over the echo (its suppressor holds a double-talk
onset back: the bench's per-frame trace shows the user's first 100 ms at the echo residual's
level, 20-45 dB under the gate), the hold follows at the first of them, the block reaches the
listener 40-55 ms after its first sample (capture block, resampler, canceller), and the player
stops within a block. Holding at the first voiced frame rather than at the endpointer's onset
(three of five) saves 40 ms, which the 150 ms bound needs on the loaded development machine (three
frames: a median of 155 ms). Playback goes on after a false hold from the last pause before the
cut; see the README, "Barge-in", for how often the bench measures false holds. The onset detector
(`[bargein] onset_detector`, on by default) holds sooner where AEC3's suppressor is what delays the
first voiced frame (see `OnsetDetector`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Awaitable, Callable

import numpy as np
import webrtcvad

from assistant.asr.text import normalize
from assistant.audio.echo import FRAME, FRAME_MS, SAMPLE_RATE, EchoCanceller
from assistant.config import BargeinConfig
from assistant.phrases import STOP_WORDS_AFTER, STOP_WORDS_BEFORE
from assistant.vad import VOICE_MIN_DB, Endpointer, State, level_db, pcm16_bytes

log = logging.getLogger(__name__)

MS = 1_000_000  # ns per ms
ECHO_TAIL_MS = 250  # ms a reference block (stamped when written) is heard: output latency, echo, reverb
AUDIBLE_DB = -60.0  # dBFS: a quieter reference cannot be heard over a room; the gate is off
INITIAL_COUPLING_DB = 0.0  # dB: until learnt, the echo is taken to be as loud as what is played
HISTORY_FRAMES = 150  # learnt frames behind the coupling estimate (~3 s of the assistant alone)
COUPLING_PERCENTILE = 99  # of the learnt frames: the loud tail of the echo is what the gate must stop
MIN_HISTORY = 25  # frames learnt before the estimate replaces INITIAL_COUPLING_DB
# dB above the learnt frames' median beyond which a frame is learnt as that much: a user the gates
# missed is learnt as echo (nothing held), and at clause starts, as loud as the echo, raised the
# onset detector's p99 from -18 to 0 dB and the endpointer's to -5, so that the next "Stop." was
# missed too. The linear filter's echo lies 6-21 dB over its median at p99 (bench rig).
LEARN_ABOVE_MEDIAN_DB = 20.0
LEARN_DELAY_MS = 300  # ms a frame waits before it is learnt; a hold in between drops it
LEARN_PAUSE_MS = 2000  # ms after a hold starts or ends in which nothing is learnt: the user may be talking
HOLD_FRAMES = 1  # voiced frames in the endpointer's smoothing window (the newest one voiced) that hold
RELEASE_MS = 300  # ms without a voiced frame that end a hold: shorter pauses are between words
# ms before an onset the recognizer gets while it takes the linear filter's output: the gate judges
# AEC3's, which held a voice that began with the session's first answer under it for 350 ms
# ("tell me" lost), and a "Stop." before the question under it whole, so that the question's onset
# came 700 ms after the word's (600 ms: "op what is ..." in 5 of 36); the linear output keeps them
# (docs/bargein_history.md).
HEARD_PREROLL_MS = 900
# ms before a hold that no utterance was made of from which the recognizer hears what it held
# (`held_words`): the hold comes 10-150 ms into the voice that started it
HELD_PREROLL_MS = 300
# ... and from this far back where a floor (the moves' windows below) was on within it: the word can
# lie whole under the raised gate, the hold coming only as the floor ends, 420-450 ms into "Stop!"
# said as a clause begins inside the restart floor. From 300 ms back such holds heard "up" or "ugh"
# (1 of 4 heard the phrase), from 600 ms 4 of 5 (`bench_bargein.py --stops 40`, 2026-12-02)
HELD_FLOORED_PREROLL_MS = 600
HEARD_KEPT_MS = 3000  # ms of what the recognizer got that is kept for that: a hold lasts about 1 s
RESUME_COUPLING_DB = -10.0  # dB: the least coupling assumed after a hold that ended as a blip ...
RESUME_MS = 2500  # ... for this long: AEC3 is re-converging after the echo path moved
RESTART_MS = 1500  # ... and for the first this long of sound after the output stream restarted
AFTER_HOLD_MS = 400  # ms voice must go on after the hold stopped playback: the echo is gone by then
# ms of echo delay behind the stamps that ECHO_TAIL_MS and AFTER_HOLD_MS allow for (the tests'
# loopback: 20-25 ms); a tracked delay beyond it lengthens both by the difference (`_follow_echo_delay`)
DELAY_IN_TAIL_MS = 50
PAUSE_MS = 100  # ms without audible reference after which sound starts a new START_MS phase ...
START_MS = 500  # ... in which the echo estimate is learnt and applied apart (AEC3 leaks more there)
ONSET_VAD_MODE = 3  # webrtcvad's strictest mode there: residual echo must not pass as voice
# dB the onset detector's gate stands above the endpointer's (speaking_threshold_db): its false holds
# on the bench's echo came 0-2 dB over a gate at the threshold, the users' onsets rise 3-10 dB a frame
ONSET_MARGIN_DB = 3.0
# GCC-PHAT peak of the canceller's output against what played (0-600 ms before) from which voice
# over the answer is the assistant's own echo (`_own_echo`). Measured at the moment a barge-in was
# confirmed: users' voices 0.03-0.13 (83 in the rapid barge-in test, p99 0.08); echo let through
# when the echo path moved mid-answer 0.21-0.56 (6). On the mic itself the two overlapped (a voice
# comes with the echo under it): 0.05-0.29 against 0.12-0.44.
ECHO_PEAK = 0.17
# dB: the least coupling the onset detector assumes while the echo path has just moved (the floor
# windows above): until the linear filter has found the echo again its output is louder (the bench,
# before it followed the delay: false holds 0-2 dB over the -10 dB floor)
ONSET_MOVED_COUPLING_DB = 0.0
# ms before a floor's stretch, besides the echo's tracked lateness (`BargeIn.late_ms`), from which
# the answer's clauses may be what leaks in it: twice ECHO_TAIL_MS (a clause's first sample is
# stamped as the player takes it, and is heard later)
SAID_BEFORE_MS = 2 * ECHO_TAIL_MS
# words of the answer's echo the recognizer may hear before a stop phrase where it reaches back
# before the voice (`BargeIn._without_echo_words`): about as many as HEARD_PREROLL_MS of speech holds
ECHO_WORDS_BEFORE = 3


class EchoEstimate:
    """How loud the assistant's own voice can be in what the endpointer hears, from what is played.

        level(t)  = loudest reference block stamped in [t - tail, t] + coupling[phase(t)]
        coupling  = COUPLING_PERCENTILE of (heard dB - loudest reference dB) over the last
                    HISTORY_FRAMES learnt frames of the same phase

    Two phases, learnt apart: the first START_MS of sound after a pause of PAUSE_MS or more (a clause
    starting, playback resuming after a hold), and the rest. AEC3 lets more echo through just after
    the far end starts again (bursts 15-25 dB above its usual residual in the tests); one estimate for
    both would either open the gate to those bursts or close it to the user everywhere else.

    A frame is learnt when only the assistant was audible: the endpointer in SILENCE, no hold in the
    last LEARN_PAUSE_MS (the user may go on talking below the gate after one), and still so
    LEARN_DELAY_MS later (a hold in between drops the waiting frames: they may be the onset of the
    user's voice). The gate must never rise against the user: it would shut them out, and what it
    learnt from them would shut them out more (tried: learning the frames behind a hold that ended
    as a blip did that, after the gate had cut a barge-in short). Frames above the gate are learnt
    too: leaving out the loud tail of the echo would let the estimate sink and the gate open to it.
    But a frame counts as at most LEARN_ABOVE_MEDIAN_DB over the learnt median: a user that no
    gate held is learnt too, and would raise the gate against the next try.

    `reference` runs on the playback thread, everything else on the listener's event loop.
    Example: blocks at -20 dBFS stamped up to t, coupling -30 dB → `level(t)` = -50 dBFS; a frame must
    reach -50 + speaking_threshold_db to count as voiced.
    """

    def __init__(self, tail_ms: float = ECHO_TAIL_MS) -> None:
        self.tail_ns = int(tail_ms * MS)
        self._lock = threading.Lock()
        self._blocks: deque[tuple[int, float]] = deque()  # (stamp ns, dBFS) of reference blocks
        self._last_audible: int | None = None  # stamp of the last audible block written
        self._end: int | None = None  # where the last block written ends: the next starts there
        # stamps where the player's clock was re-anchored (an underflow) or its stream restarted
        self._moves: deque[int] = deque(maxlen=8)
        self._stopped = False  # playback stopped (the stream aborted): the next block is a restart
        # Anything audible written yet: the player's stream runs from the start, silent, and a
        # re-stamp then (an underflow while the models load) moves nothing the echo filters learnt.
        self._sounded = False
        self._starts: deque[int] = deque(maxlen=8)  # stamps where sound began after a pause
        self._pending: deque[tuple[int, bool, float]] = deque()  # (mic ns, start?, heard - played dB)
        self._history = {phase: deque(maxlen=HISTORY_FRAMES) for phase in (True, False)}
        self._coupling = {True: INITIAL_COUPLING_DB, False: INITIAL_COUPLING_DB}

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        """A block about to play (stamped ≤ when it sounds); empty: playback stopped at t_ns."""
        with self._lock:
            while self._blocks and self._blocks[-1][0] >= t_ns:
                self._blocks.pop()  # written ahead, then dropped by the stop: never sounded
            while self._starts and self._starts[-1] >= t_ns:
                self._starts.pop()
            if not len(samples):
                self._last_audible = self._end = None
                self._stopped = True
                return
            if self._stopped or (self._end is not None and abs(t_ns - self._end) > MS):
                # The stream restarted after a stop (a hold, a barge-in, a stall), or the block is not
                # where the last one ended (the player re-stamped its clock after an underflow): the
                # sound moved against the echo filters' reference. Sound from here is a start.
                if self._sounded:  # before any sound the echo filters have no delay to lose
                    self._moves.append(t_ns)
                self._last_audible, self._stopped = None, False
            self._end = t_ns + len(samples) * 1000 * MS // SAMPLE_RATE
            db = level_db(samples)
            self._blocks.append((t_ns, db))
            while self._blocks[0][0] < t_ns - 2 * self.tail_ns:
                self._blocks.popleft()  # the player runs all session: keep only what can still be heard
            if db > AUDIBLE_DB:
                self._sounded = True
                if self._last_audible is None or t_ns - self._last_audible >= PAUSE_MS * MS:
                    self._starts.append(t_ns)
                self._last_audible = t_ns

    def played_db(self, t_ns: int) -> float | None:
        """The loudest reference that can be heard in a mic block starting at t_ns; None if none is."""
        with self._lock:  # `reference` keeps the blocks of the last 2 tails: all this can need
            levels = [db for stamp, db in self._blocks if t_ns - self.tail_ns <= stamp <= t_ns]
        loudest = max(levels, default=None)
        return loudest if loudest is not None and loudest > AUDIBLE_DB else None

    def starting(self, t_ns: int) -> bool:
        """Whether a mic block at t_ns lies in the first START_MS of sound after a pause."""
        start = self.last_start_at(t_ns)
        return start is not None and t_ns - start < START_MS * MS

    def first_start_after(self, t_ns: int) -> int | None:
        """The stamp where sound first began after a pause at or after t_ns, if it has yet."""
        with self._lock:
            return min((start for start in self._starts if start >= t_ns), default=None)

    def last_start_at(self, t_ns: int) -> int | None:
        """The stamp where sound last began after a pause at or before t_ns, if it has."""
        with self._lock:
            return max((start for start in self._starts if start <= t_ns), default=None)

    def last_move_at(self, t_ns: int) -> int | None:
        """The stamp where the player's clock was last re-anchored at or before t_ns, if it was."""
        with self._lock:
            return max((move for move in self._moves if move <= t_ns), default=None)

    def coupling(self, t_ns: int) -> float:
        """dB from the loudest audible reference to the loudest echo expected at mic time t_ns."""
        return self._coupling[self.starting(t_ns)]

    def learn(self, heard_db: float, played_db: float, t_ns: int) -> None:
        """A frame where only the assistant seemed audible; learnt LEARN_DELAY_MS later if no hold
        came, or at once while nothing is learnt yet: the gate then stands at INITIAL_COUPLING_DB,
        where only a voice louder than what plays can hold, so the wait would drop nothing and only
        keep the gate shut 300 ms longer at the start of a session's first answer."""
        if all(len(history) < MIN_HISTORY for history in self._history.values()):
            self._add(self.starting(t_ns), heard_db - played_db)
            return
        self._pending.append((t_ns, self.starting(t_ns), heard_db - played_db))
        while self._pending and self._pending[0][0] <= t_ns - LEARN_DELAY_MS * MS:
            self._add(*self._pending.popleft()[1:])

    def discard(self) -> None:
        """A hold: the frames waiting to be learnt may be the user's voice."""
        self._pending.clear()

    def settled(self) -> bool:
        """Whether both phases have a full HISTORY_FRAMES learnt (not just MIN_HISTORY)."""
        return all(len(history) >= HISTORY_FRAMES for history in self._history.values())

    def _add(self, start: bool, db: float) -> None:
        history = self._history[start]
        if len(history) >= MIN_HISTORY:
            db = min(db, float(np.median(history)) + LEARN_ABOVE_MEDIAN_DB)
        history.append(db)
        if len(history) >= MIN_HISTORY:
            self._coupling[start] = float(np.percentile(history, COUPLING_PERCENTILE))
            if start and len(self._history[False]) < MIN_HISTORY:
                # Until the rest has its own, it takes the start's, which AEC3 leaks more into, not
                # INITIAL_COUPLING_DB: that kept a user who went on talking as the first answer began
                # out for 2 s, and what it kept out was learnt as echo (README, Barge-in).
                self._coupling[False] = self._coupling[True]


class OnsetDetector:
    """The user's voice starting over the answer, heard on the linear echo filter's output.

    AEC3's suppressor takes the first 40-150 ms of a user who starts talking over the answer for echo
    and holds it 20-45 dB under the gate (see "Timing" above); most barge-ins slower than 150 ms in
    the bench went that way. A linear filter (Speex MDF, `audio.echo.linear_filter`) run on the same
    frame pairs has no suppressor: it leaves more echo (about -40 dB against -60 for AEC3, p99, on a
    recorded loopback), but the user's voice at full level. Offline, on that recording with espeak
    questions mixed in at the bench's levels, the first frame above each path's learnt gate came
    10 ms after the onset on the linear output in 41 of 41, against 70 ms at the median (130 at p90)
    on AEC3's. So a frame webrtcvad calls voiced and `threshold_db` + ONSET_MARGIN_DB above its own
    echo estimate (an `EchoEstimate` learnt on this signal, under the same rules) holds playback
    too, once that estimate has settled, and with the coupling at least ONSET_MOVED_COUPLING_DB
    while the echo path has just moved. It only starts holds: releasing and confirming stay with
    AEC3's output; the recognizer gets its output while the answer is audible (`BargeIn.heard`),
    and hears it over a hold about to be released (`BargeIn.held_words`).

    On by default since 2026-11-26. Its false holds of 2026-11-25 (1.2-2.1 a minute against 0.4-0.8
    without, in bursts where the linear output rose to the echo's own level) came from the echo
    moving against the reference at every restart, underflow and mic re-anchor, by 1-21 ms, and the
    filter learning the path anew for seconds each time; it now follows the echo's delay instead
    (`audio.echo.DelayTracker`; its output is None while it rests). Kept out of clause starts, it
    then stopped 83% of the bench's barge-ins within 150 ms against 87% without, most slow ones
    beginning in a clause's first START_MS; allowed there (the floor after a move kept), 88 of 90,
    with 0-1.2 false holds a minute against 0-0.8 (README, Measured, 2026-11-26). Without that floor
    it held 45-66 times a minute, ~220 ms into the clauses that follow a hold's restart.
    """

    def __init__(self, threshold_db: float, tail_ms: float) -> None:
        self.threshold_db = threshold_db + ONSET_MARGIN_DB
        self.estimate = EchoEstimate(tail_ms)
        self.vad = webrtcvad.Vad(ONSET_VAD_MODE)
        self.voiced_until_ns = 0  # mic time where the last frame above the gate ended
        self.margins: list[float] = []  # the last block's voiced frames, dB over the gate (for the bench)

    def accept(self, linear: np.ndarray, t_ns: int, learn: bool, floor_db: float | None) -> None:
        """A block of the linear filter's output from mic time t_ns. `learn`: only the assistant
        can be audible; `floor_db`: the least coupling to assume (the echo path just moved)."""
        frame_ns = FRAME_MS * MS  # the echo filters' frame
        self.margins = []
        for i in range(len(linear) // FRAME):
            samples, at = linear[i * FRAME : (i + 1) * FRAME], t_ns + i * frame_ns
            # every frame: webrtcvad adapts to the signal it is given (a fresh one misses quiet onsets)
            voiced = self.vad.is_speech(pcm16_bytes(samples), SAMPLE_RATE, FRAME)
            played = self.estimate.played_db(at)
            if played is None:
                continue  # nothing audible: the endpointer hears the user unhindered
            db = level_db(samples)
            if learn:
                self.estimate.learn(db, played, at)
            coupling = self.estimate.coupling(at)
            if floor_db is not None:
                coupling = max(coupling, floor_db)
            gate = max(played + coupling + self.threshold_db, VOICE_MIN_DB)
            if voiced:
                self.margins.append(db - gate)
            # Only once the estimate has seen a few clause starts (its first frames' p99 is a max of
            # few). Clause starts are where AEC3 holds the user back longest, so it acts there too
            # (until its filter followed the echo's delay, its false holds came from there).
            if voiced and db >= gate and self.estimate.settled():
                self.voiced_until_ns = at + frame_ns


class BargeIn:
    """The barge-in policy between the listener (which calls it per block) and the pipeline."""

    def __init__(self, cfg: BargeinConfig, pipe, endpointer: Endpointer, echo: EchoCanceller) -> None:
        self.cfg = cfg
        self.pipe = pipe
        self.endpointer = endpointer
        self.echo = echo
        self.late_ms = cfg.echo_delay_ms  # how much later than ECHO_TAIL_MS allows the echo can come
        self.estimate = EchoEstimate(ECHO_TAIL_MS + self.late_ms)
        self.onset = (  # only when asked for: it learns from every block the player plays
            OnsetDetector(cfg.speaking_threshold_db, ECHO_TAIL_MS + self.late_ms)
            if cfg.onset_detector
            else None
        )
        self.onset_ns: int | None = None  # speech that started while the assistant was answering
        self.hold_ns: int | None = None  # mic time of the block that last held playback
        self.held_from_ns = 0  # mic time from which `held_words` hears what that hold held
        self.floored_ns: int | None = None  # mic time the gates last stood on a floor (`moved`)
        self.floor_from_ns: int | None = None  # mic time the floor now on began (None: none is on)
        # (dB over the learnt gate, mic time) of the loudest block under it above that gate
        self.floor_loudest: tuple[float, int] | None = None
        self._floor_ended: tuple[int, int] | None = None  # (floor start, its loudest) to look back at
        # the recognizer on the last floor's stretch (kept: the loop holds its tasks only weakly)
        self._looking_back: asyncio.Task | None = None
        self.floor_stops = 0  # floors that ended having hidden a stop phrase alone (`floor_words`)
        self.interrupted = None  # the turn this utterance interrupted once confirmed (False: none was left)
        self.resumed_until_ns = 0  # mic time until which RESUME_COUPLING_DB holds after a blip
        self.learn_after_ns = 0  # mic time from which the echo estimate may learn again after a hold
        self.voiced_ns = 0  # mic time of the last frame the endpointer took as voiced
        self.echo_gone_ns: int | None = None  # mic time from which nothing played can be heard
        self.onset_holds = 0  # holds the onset detector started before the endpointer's gate opened
        self.mic_moved_ns: int | None = None  # mic time the canceller last re-anchored the mic
        self.echo_dismissed = 0  # utterances over the answer, recognized as words, found to be its echo
        self.echo_onset: int | None = None  # onset of the last utterance found to be the echo
        self._reanchors = 0  # the canceller's re-anchor count seen so far
        self._stop_phrases = {tuple(normalize(p).split()) for p in cfg.stop_phrases} - {()}
        # samples → their final text, off the event loop (the listener's recognizer); None: not vetted
        self.transcribe: Callable[[np.ndarray], Awaitable[str]] | None = None
        self._heard: deque[tuple[int, np.ndarray]] = deque()  # (mic time, block) the recognizer got
        self.held_stops = 0  # holds that were to be released but had heard a stop phrase alone

    def reference(self, samples: np.ndarray, t_ns: int) -> None:
        """The player's far end (playback thread): to the echo canceller and to the echo estimate."""
        self.echo.reference(samples, t_ns)
        self.estimate.reference(samples, t_ns)
        if self.onset is not None:
            self.onset.estimate.reference(samples, t_ns)

    def before(self, samples: np.ndarray, t_ns: int, linear: np.ndarray | None = None) -> None:
        """Ahead of the endpointer: gate it against the echo estimate while the assistant is audible;
        `linear` (the linear echo filter's output of the same frames) goes to the onset detector."""
        self._follow_echo_delay()
        played = self.estimate.played_db(t_ns) if self.cfg.enabled else None
        alone = self.endpointer.state is State.SILENCE and not self.pipe.hold.is_set()
        learn = played is not None and alone and t_ns >= self.learn_after_ns
        moved = t_ns < self.resumed_until_ns or self._first_sound_after_move(t_ns) or self._mic_moved(t_ns)
        if moved:
            self.floored_ns = t_ns
        if linear is not None and self.onset is not None and self.cfg.enabled:
            self.onset.accept(linear, t_ns, learn, ONSET_MOVED_COUPLING_DB if moved else None)
        if played is None:
            self._follow_floor(t_ns, None)
            self.endpointer.set_gate(None)
            return
        if learn:
            self.estimate.learn(level_db(samples), played, t_ns)
        coupling = self.estimate.coupling(t_ns)
        learnt_gate = played + coupling + self.cfg.speaking_threshold_db
        self._follow_floor(t_ns, level_db(samples) - learnt_gate if moved else None)
        if moved:
            coupling = max(coupling, RESUME_COUPLING_DB)
        self.endpointer.set_gate(self.cfg.speaking_threshold_db)
        self.endpointer.set_reference_level(played + coupling)

    def _follow_floor(self, t_ns: int, over_learnt_db: float | None) -> None:
        """Keep the floor's start and its loudest block over the gate the learnt echo estimate alone
        would set (`over_learnt_db`: the block's dB over it; None: no floor is on); as a floor with
        such a block ends, a look back at it is due (`after`, `floor_words`)."""
        if over_learnt_db is not None:
            if self.floor_from_ns is None:
                self.floor_from_ns = t_ns
            if over_learnt_db >= 0 and (self.floor_loudest is None or over_learnt_db > self.floor_loudest[0]):
                self.floor_loudest = (over_learnt_db, t_ns)
            return
        if self.floor_from_ns is not None and self.floor_loudest is not None:
            self._floor_ended = (self.floor_from_ns, self.floor_loudest[1])
        self.floor_from_ns = self.floor_loudest = None

    def heard(self, samples: np.ndarray, linear: np.ndarray | None, t_ns: int) -> np.ndarray:
        """What the recognizer gets of a block: while the assistant is audible or playback is held,
        the linear echo filter's output where there is one (`[bargein] onset_detector`), else
        AEC3's. AEC3's suppressor takes the first 100-300 ms of a user who talks over the answer for
        double talk and holds it 10-40 dB down: a request going on as the answer began lost "tell
        me a long" (README, Barge-in). The linear filter leaves more echo (about -40 dB against -60,
        p99) but the voice whole, and the hold stops playback, so its echo lies under the first
        300 ms or so at most. Elsewhere, AEC3's output, which the endpointer judged, as before.
        The last HEARD_KEPT_MS of it are kept for `held_words`."""
        heard = self._choose_heard(samples, linear, t_ns)
        self._heard.append((t_ns, heard))
        while self._heard[0][0] < t_ns - HEARD_KEPT_MS * MS:
            self._heard.popleft()
        return heard

    def _choose_heard(self, samples: np.ndarray, linear: np.ndarray | None, t_ns: int) -> np.ndarray:
        if linear is None or not self.cfg.enabled:
            return samples
        if self.estimate.played_db(t_ns) is None and not self.pipe.hold.is_set():
            self.endpointer.set_preroll(None)
            return samples
        self.endpointer.set_preroll(HEARD_PREROLL_MS)
        return linear

    def _follow_echo_delay(self) -> None:
        """The echo tail of both gates and AFTER_HOLD_MS follow the echo's delay behind its stamps
        (the canceller's `DelayTracker`) beyond DELAY_IN_TAIL_MS. A machine short of CPU moved the
        tests' loopback echo to 276-454 ms; the gate then took the echo of older sound for the user,
        and after a hold the echo of what played before it went on past AFTER_HOLD_MS."""
        late = max(self.cfg.echo_delay_ms, (self.echo.echo_delay_ms or 0.0) - DELAY_IN_TAIL_MS)
        if late != self.late_ms:
            self.late_ms = late
            estimates = [self.estimate] + ([self.onset.estimate] if self.onset is not None else [])
            for estimate in estimates:
                estimate.tail_ns = int((ECHO_TAIL_MS + late) * MS)

    def _first_sound_after_move(self, t_ns: int) -> bool:
        """Whether t_ns lies in the first RESTART_MS of sound since the player's stream last
        restarted or re-stamped its clock (an underflow), or in the START_MS phase of a clause that
        began within them: the echo moved against its reference, and both AEC3 and the linear filter
        leak until they have the new delay, most at a clause start. Any restart: one without a hold
        (an answer cut by `Pipeline.interrupt` alone, a stall) held the next answer 200 ms into its
        first clause in 8 of 11 answers, at loopback volume 1.0 and at 0.5 alike (2026-12-02). A
        clause that starts as RESTART_MS ends leaked 20-25 dB over its learnt estimate, 100-200 ms
        in: 14 of 68 answers after a cut were held there, 1.6-1.8 s into the answer; with the floor
        kept over it, 2 of 56 answers were held at all (`bench_bargein.py --cuts`, 2026-12-02)."""
        move = self.estimate.last_move_at(t_ns)
        start = self.estimate.first_start_after(move) if move is not None else None
        if start is None or t_ns < start:
            return False
        end = start + RESTART_MS * MS
        clause = self.estimate.last_start_at(end - 1)  # the last to begin within the floor
        return t_ns < max(end, clause + START_MS * MS)

    def _mic_moved(self, t_ns: int) -> bool:
        """Whether the echo canceller re-anchored the mic (`MicAnchor`) in the last RESTART_MS: the
        echo moved against its reference as after a restart."""
        reanchors = self.echo.mic_reanchors
        if reanchors != self._reanchors:
            self._reanchors, self.mic_moved_ns = reanchors, t_ns
        return self.mic_moved_ns is not None and t_ns - self.mic_moved_ns < RESTART_MS * MS

    def speech_started(self, onset_ns: int) -> None:
        if self.pipe.busy or self.pipe.hold.is_set():
            self.onset_ns = onset_ns

    async def after(self, t_ns: int) -> None:
        """After the endpointer: hold on voice, release after a blip, interrupt on confirmed speech."""
        if not self.cfg.enabled:
            return
        hold = self.pipe.hold
        ended, self._floor_ended = self._floor_ended, None
        stretch = self._floor_stretch(*ended, t_ns) if ended is not None else None
        # beside the blocks that follow, not before them: a voice the floor hid holds as it ends
        if stretch is not None:
            looked_at = self._look_back(stretch, self.pipe.current, from_ns=ended[0])
            self._looking_back = asyncio.create_task(looked_at, name="floor look-back")
        if self.endpointer.recent_voicing[-1:] == (True,):
            self.voiced_ns = t_ns
        if not self._echo_gone(t_ns):
            self.echo_gone_ns = None
        elif self.echo_gone_ns is None:
            self.echo_gone_ns = t_ns
        voice = self._voice(t_ns, hold.is_set())
        # a frame of this block, on the linear output
        onset = self.onset is not None and self.onset.voiced_until_ns > t_ns
        if (voice or onset) and self.pipe.busy and not hold.is_set():
            hold.set()
            self.onset_holds += not voice
            self.hold_ns = t_ns
            self.floor_loudest = None  # the hold hears what the floor hid (`held_words`)
            floored = self.floored_ns is not None and t_ns - self.floored_ns <= HELD_FLOORED_PREROLL_MS * MS
            self.held_from_ns = t_ns - (HELD_FLOORED_PREROLL_MS if floored else HELD_PREROLL_MS) * MS
            self.estimate.discard()
            if self.onset is not None:
                self.onset.estimate.discard()
            self.learn_after_ns = t_ns + LEARN_PAUSE_MS * MS
        elif (
            not voice
            and hold.is_set()
            and self._quiet_ungated(t_ns)
            and self.endpointer.state is not State.SPEECH
        ):
            heard = await self.held_words(t_ns)
            since_ns = self._may_leak_since(self.held_from_ns)
            if self.is_stop_phrase(self._without_echo_words(heard, self.pipe.current, since_ns)):
                self.held_stops += 1
                await self.pipe.interrupt()  # the answer ends; a stop phrase asks nothing
                return
            hold.clear()  # a blip: playback goes on (an utterance is judged when it ends)
            self.resumed_until_ns = t_ns + RESUME_MS * MS
            self.learn_after_ns = t_ns + LEARN_PAUSE_MS * MS
        if self._confirmed() and not self._is_echo_utterance(t_ns):
            self.interrupted = await self.pipe.interrupt() or False

    async def held_words(self, t_ns: int) -> str:
        """What the recognizer makes of what it got from HELD_PREROLL_MS before the hold to mic time
        t_ns (HELD_FLOORED_PREROLL_MS where a floor was on within that before it), where no utterance
        was made of it: "" without a recognizer, and where it is the answer's own echo (`_own_echo`
        over the hold's first 300 ms).

        A lone "Stop." said as a clause starts was held at once but never heard (10 of 24 stop
        phrases went on, `bench_bargein.py --stops 24`, 2026-12-01): AEC3 leaks most there, so
        the gate stood at the echo's level, and it stays there until the echo of what played before
        the hold has died out, by when a short word is over. The recognizer gets the linear
        filter's output while held (`heard`), where the word is whole."""
        if self.transcribe is None or self.hold_ns is None or self.onset_ns is not None:
            return ""
        heard = self._heard_between(self.held_from_ns, t_ns, echo_until_ns=self.hold_ns + 300 * MS)
        return "" if heard is None else await self.transcribe(heard)

    def _heard_between(self, from_ns: int, t_ns: int, echo_until_ns: int) -> np.ndarray | None:
        """What the recognizer got from mic time `from_ns` to t_ns; None where it got nothing, or
        where the 300 ms up to `echo_until_ns` (at most t_ns) are the answer's own echo (`_own_echo`)."""
        blocks = [block for at, block in self._heard if from_ns <= at <= t_ns]
        if not blocks or self._own_echo(min(t_ns, echo_until_ns)):
            return None
        return np.concatenate(blocks)

    def _floor_stretch(self, from_ns: int, loudest_ns: int, t_ns: int) -> np.ndarray | None:
        """What the recognizer got from mic time `from_ns`, where a floor began, to t_ns, as it
        ended, where neither a hold nor an utterance was made of it: None without a recognizer,
        with playback held or voice going on (those judge it), and where the stretch is the
        answer's own echo (`_own_echo` over the 300 ms around its loudest block)."""
        quiet = self.endpointer.state is State.SILENCE and self.onset_ns is None
        if self.transcribe is None or not quiet or self.pipe.hold.is_set() or not self.pipe.busy:
            return None
        return self._heard_between(from_ns, t_ns, echo_until_ns=loudest_ns + 150 * MS)

    async def _look_back(self, stretch: np.ndarray, turn, from_ns: int) -> None:
        """A stop phrase alone in a floor's stretch (from mic time `from_ns`) that the answer
        (`turn`, still being answered once it is heard) does not say there ends the answer."""
        try:
            hidden = await self.floor_words(stretch)
        except Exception as err:  # only a second chance at a word: the answer goes on
            log.warning("the look back at the gate's floor failed: %s", err)
            return
        still = self.pipe.busy and self.pipe.current is turn
        since_ns = self._may_leak_since(from_ns)
        phrase = self._without_echo_words(hidden, turn, since_ns)
        if still and self.is_stop_phrase(phrase) and not _says(turn, phrase, since_ns):
            self.floor_stops += 1
            await self.pipe.interrupt()  # the answer ends; a stop phrase asks nothing

    async def floor_words(self, stretch: np.ndarray) -> str:
        """What the recognizer makes of a floor's stretch (`_floor_stretch`)."""
        return await self.transcribe(stretch)

    def _is_echo_utterance(self, t_ns: int) -> bool:
        """Whether the utterance in progress is the assistant's own echo (`_own_echo`), once found
        so for good: as the echo dies out after the hold, its last 300 ms correlate less and less
        (0.10-0.17 in the tests), and it would be confirmed on the way out."""
        if self.echo_onset != self.onset_ns and self._own_echo(t_ns):
            self.echo_onset = self.onset_ns
        return self.echo_onset == self.onset_ns

    def _own_echo(self, t_ns: int) -> bool:
        """Whether the canceller's output over the last 300 ms before mic time t_ns is the echo of
        what played (`echo_peak` at least ECHO_PEAK): a canceller that lost the echo's path (it
        moved) lets it through at full level, and the gate, learnt on what it let through before,
        takes it for the user. Not with `echo_cancel = "off"`: there the user's voice comes with
        the whole echo under it."""
        peak = self.echo.echo_peak(t_ns)
        return peak is not None and peak >= ECHO_PEAK

    def _echo_gone(self, t_ns: int) -> bool:
        """Whether nothing played before the hold can still be heard at mic time t_ns (the gate is off)."""
        return self.estimate.played_db(t_ns) is None

    def _quiet_ungated(self, t_ns: int) -> bool:
        """Whether the last RELEASE_MS had no voiced frame while the gate was off: only there would
        the user's voice have counted had it gone on."""
        if self.echo_gone_ns is None:
            return False
        return t_ns - max(self.echo_gone_ns, self.voiced_ns) >= RELEASE_MS * MS

    def _voice(self, t_ns: int, held: bool) -> bool:
        """Voice may be starting (HOLD_FRAMES voiced in the smoothing window, the newest among them;
        or the endpointer in MAYBE), or, once held or in a confirmed utterance, there was voice in
        the last RELEASE_MS: "Wait, ..." has a pause after its first word, and releasing there
        resumed the answer under the user (then the next hold pushed the interruption back)."""
        ep = self.endpointer
        if ep.state is State.SPEECH:
            return t_ns - max(ep.voiced_until_ns, self.voiced_ns) < RELEASE_MS * MS
        if ep.state is State.MAYBE:
            return True
        if held:
            return t_ns - self.voiced_ns < RELEASE_MS * MS
        voicing = ep.recent_voicing
        return bool(voicing) and voicing[-1] and sum(voicing) >= HOLD_FRAMES

    def _confirmed(self) -> bool:
        """Speech over the answer that lasted min_speech_ms and outlived the hold's echo."""
        if self.onset_ns is None or self.interrupted is not None:
            return False
        voiced_until = self.endpointer.voiced_until_ns
        held = self.hold_ns if self.hold_ns is not None else self.onset_ns
        return (
            voiced_until - self.onset_ns >= self.cfg.min_speech_ms * MS
            and voiced_until - held >= (AFTER_HOLD_MS + self.late_ms) * MS
        )

    async def utterance_ended(self, text: str, speech_end_ns: int) -> bool:
        """Whether the utterance that just ended (`text` as recognized) is a turn to answer.

        Over an answer, an utterance too short for `_confirmed` ("Stop.", "Wait.": the word is over
        before AFTER_HOLD_MS can pass) still interrupts at its end if it lasted min_speech_ms and the
        recognizer heard words in it: the hold kept playback stopped meanwhile (`after` does not
        release it while the endpointer is in SPEECH). A stop phrase (`[bargein] stop_phrases`)
        ends the answer and is not a question."""
        onset, interrupted = self.onset_ns, self.interrupted
        self.onset_ns = self.interrupted = self.hold_ns = None
        if onset is None:
            return True  # ordinary speech, the assistant was not answering
        if not self.cfg.enabled:
            # No barge-in: half duplex. What is said over the answer is not a turn; nor is the
            # assistant's own voice, which nothing cancels or gates then.
            return False
        since_ns = self._may_leak_since(onset - HEARD_PREROLL_MS * MS)
        stop = self.is_stop_phrase(self._without_echo_words(text, self.pipe.current, since_ns))
        if interrupted is None:
            # A stop phrase the recognizer heard is no cough, however little of it the gate let through
            short = speech_end_ns - onset < self.cfg.min_speech_ms * MS and not stop
            own_echo = onset == self.echo_onset or self._own_echo(speech_end_ns)
            if not text or short or own_echo:
                self.pipe.hold.clear()  # a cough, "mm-hm", an echo burst: the answer goes on
                self.echo_dismissed += bool(text) and not short
                return False
            interrupted = await self.pipe.interrupt() or False
        if not text and interrupted:
            await self.pipe.respeak(interrupted)
        return not stop

    def _without_echo_words(self, text: str, turn, since_ns: int) -> str:
        """`text` less its first words, at most ECHO_WORDS_BEFORE of them, where the clauses of
        `turn` sounding from mic time `since_ns` on say them (`_says`) and what is left is a stop
        phrase they do not say; otherwise `text` itself. The recognizer hears from before the
        voice (HEARD_PREROLL_MS before an utterance, HELD_PREROLL_MS before a hold, a floor's
        start), on the linear filter's output, where the echo leaks through as words: "Wait." and
        "Enough." were asked as "to wait" and "there was enough" (2 of 40, `bench_bargein.py --n 0
        --m 0 --stops 40`, 2026-12-02), the answer cut and the echo's words answered."""
        if turn is None:
            return text
        words = text.split()
        for cut in range(1, min(len(words), ECHO_WORDS_BEFORE + 1)):
            echo, phrase = " ".join(words[:cut]), " ".join(words[cut:])
            if not self.is_stop_phrase(phrase):
                continue
            if _says(turn, echo, since_ns) and not _says(turn, phrase, since_ns):
                return phrase
        return text

    def _may_leak_since(self, heard_from_ns: int) -> int:
        """The mic time from which the answer's clauses sounding (`_says`) may be what leaks into
        what the recognizer heard from `heard_from_ns`: SAID_BEFORE_MS before it, and the echo's
        tracked lateness more."""
        return heard_from_ns - int((SAID_BEFORE_MS + self.late_ms) * MS)

    def is_stop_phrase(self, text: str) -> bool:
        """`text` (a normalized transcript) is only a stop phrase, once or repeated ("stop stop"),
        with at most what people say around one (STOP_WORDS_BEFORE, STOP_WORDS_AFTER): "oh wait",
        "no no stop", "stop it please", "wait a second"."""
        words = tuple(text.split())
        while words and words[0] in STOP_WORDS_BEFORE:
            words = words[1:]
        while tail := next((t for t in STOP_WORDS_AFTER if words[-len(t) :] == t), None):
            words = words[: -len(tail)]
        # phrase * k has the length of `words` only when it divides it; k = 0 never equals `words`
        return bool(words) and any(
            words == phrase * (len(words) // len(phrase)) for phrase in self._stop_phrases
        )


def _says(turn, text: str, since_ns: int) -> bool:
    """Whether the clauses of `turn` sounding from `since_ns` on (the one sounding then, and every
    one after it) say every word of `text`: the echo's
    leak under a floor is heard as the answer's words (the bench's "Once upon a time" as "... a
    time" in 12 of the 49 floors looked back at in `--stops 40`), which GCC-PHAT on AEC3's output,
    having lost the echo's path there, let pass: an answer that says "Hold on, ..." would stop
    itself. Only those clauses: a "Wait." the answer said a minute before is not what leaks now."""
    first = max((i for i, (at_ns, _) in enumerate(turn.sounded) if at_ns <= since_ns), default=0)
    said = " ".join(clause for _, clause in turn.sounded[first:])
    return set(text.split()) <= set(normalize(said).split())
