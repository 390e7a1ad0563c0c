"""Text to speech with piper: clause splitting for streaming, synthesis, cancellation.

The LLM streams tokens; `ClauseSplitter` turns them into speakable clauses as early as it safely can
(the first clause is what the user waits for), and `PiperTts` turns each clause into audio. Both are
synchronous: the pipeline runs `PiperTts.synthesize` in a worker thread and cancels it from another
thread through a `threading.Event`.
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from assistant.config import TtsConfig
from assistant.errors import gist

# ---------------------------------------------------------------------------------------------------
# Clause splitting

SENTENCE_END = ".!?…"
CLAUSE_MARK = ",;:—–"  # comma, semicolon, colon, em dash, en dash
CLOSERS = "\"')]}’”»*_"  # may follow a sentence end before the space: `"Stop." he said`, `**Done.**`
ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt vs etc e.g i.e cf approx dept fig inc ltd co ave no a.m p.m".split()
)

_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#+\s*")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`#~|<>]+")
_DASH = re.compile(r"\s*[—–]\s*|\s+-\s+")
# A number of more digits than this is not read out: the LLM, looping, once wrote 90 of them, which
# piper spent 6.5 s making into 50 s of speech before the answer's first sound. Said as "a 90 digit
# number" (the printed answer keeps them); arithmetic.py likewise does not say a result past 10^15.
MAX_DIGITS_SAID = 15
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_SPACES = re.compile(r"\s+")
# Clock times as they are said: the voice read "4:07" as "four zero seven" and "9:00 AM" as "nine
# zero zero A M".
_ON_THE_HOUR = re.compile(r"(?<![\d:])(\d{1,2}):00\b(?!:\d)(\s*[AaPp]\.?[Mm]\b\.?)?")
_OH_MINUTE = re.compile(r"(?<![\d:])(\d{1,2}):0(\d)\b(?!:\d)")
_WORD = re.compile(r"\S+")


class ClauseSplitter:
    """Incremental text → clauses: `feed()` LLM pieces as they stream, `flush()` at the end of the reply.

    Splits after a sentence end (. ! ? …) followed by a space, at a newline, and at clause punctuation
    (, ; : — a spaced hyphen, and a closing parenthesis: "Napoleon I (1769 to 1821) | was a French
    general ...") once the clause has enough words: `first_min_words` for the first
    clause, which the user is waiting for, `min_words` afterwards, where longer clauses sound more
    natural and latency no longer matters. A clause never grows past `max_words` (split at a space).
    No split inside numbers ("3.5", "3,000", "10:30"), after common abbreviations ("Dr.", "e.g.") or
    after a list number at the start of a line ("1. "). Markdown and emoji are removed from what it
    returns; clauses with nothing speakable are dropped.

        >>> s = ClauseSplitter()
        >>> s.feed("Sure, it is about 3.")   # "Sure," is too short; "3." may become "3.5"
        []
        >>> s.feed("5 km from here, Dr. Smith says. **Go")
        ['Sure, it is about 3.5 km from here,', 'Dr. Smith says.']
        >>> s.flush()
        ['Go']
    """

    def __init__(self, first_min_words: int = 4, min_words: int = 10, max_words: int = 40):
        self.first_min_words = first_min_words
        self.min_words = min_words
        self.max_words = max_words
        self._buf = ""
        self._emitted = 0
        self._line_start = True

    def feed(self, piece: str) -> list[str]:
        """Add streamed text; return the clauses it completed (possibly none)."""
        self._buf += piece
        out: list[str] = []
        while (cut := self._find_boundary()) is not None:
            end, resume, newline = cut
            self._emit(self._buf[:end], out)
            self._buf = self._buf[resume:]
            self._line_start = newline
        return out

    def flush(self) -> list[str]:
        """The end of the reply: return whatever is left as a last clause, and reset."""
        out: list[str] = []
        self._emit(self._buf, out)
        self._buf, self._emitted, self._line_start = "", 0, True
        return out

    def _emit(self, raw: str, out: list[str]) -> None:
        text = clean_text(raw, line_start=self._line_start)
        if text:
            out.append(text)
            self._emitted += 1

    def _find_boundary(self) -> tuple[int, int, bool] | None:
        """(end of clause, start of the rest, rest starts a line) for the first boundary, else None.
        Decided only from text already seen, so any chunking of the same text splits the same way."""
        buf, words_needed = self._buf, self.first_min_words if self._emitted == 0 else self.min_words
        cap = _nth_word_start(buf, self.max_words)  # the clause may not reach the next word
        for i, c in enumerate(buf[:cap]):
            if c == "\n":
                if buf[:i].strip():
                    return i, i + 1, True
            elif c in SENTENCE_END:
                j = _skip(buf, i + 1, SENTENCE_END + CLOSERS)
                if j == len(buf):
                    return None  # wait: "3." may become "3.5", "e." may become "e.g."
                if buf[j].isspace() and not (c == "." and self._is_abbreviation(buf, i)):
                    return j, j, False
            elif c in CLAUSE_MARK or (c == "-" and buf[i - 1 : i] == " ") or c == ")":
                j = i + 1
                if j == len(buf):
                    return None
                spaced = buf[j].isspace() or c in "—–"
                if spaced and len(buf[:i].split()) >= words_needed and _speakable(buf[:i]):
                    return j, j, False
        return None if cap is None else (cap, cap, False)

    def _is_abbreviation(self, buf: str, dot: int) -> bool:
        start = dot
        while start > 0 and not buf[start - 1].isspace():
            start -= 1
        word = buf[start:dot].lstrip("\"'([{*_").lower()
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha() and word != "i"):
            return True  # "Dr.", "e.g.", initials "J. R. R."
        line_start = start == 0 and self._line_start or buf[start - 1 : start] == "\n"
        return word.isdigit() and line_start  # a numbered list: "1. Preheat the oven"


def _nth_word_start(text: str, n: int) -> int | None:
    """Index where word number n + 1 (0-based: n) starts, None if the text has no more than n words."""
    for k, m in enumerate(_WORD.finditer(text)):
        if k == n:
            return m.start()
    return None


def _skip(text: str, i: int, chars: str) -> int:
    while i < len(text) and text[i] in chars:
        i += 1
    return i


def _speakable(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def clean_text(text: str, line_start: bool = True) -> str:
    """Remove what should not be read aloud: markdown (emphasis, headings, code ticks, list bullets,
    link targets) and emoji; dashes become commas; whitespace collapses. "" if nothing speakable."""
    if line_start:
        text = _HEADING.sub("", text)
        text = _LIST_MARKER.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _MARKUP.sub("", text)
    text = _DASH.sub(", ", text)
    text = _ON_THE_HOUR.sub(lambda m: m[1] + (m[2] or " o'clock"), text)
    text = _OH_MINUTE.sub(r"\1 oh \2", text)
    text = _NUMBER.sub(_unless_too_long, text)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("So", "Sk", "Cs", "Co", "Cf"))
    text = _SPACES.sub(" ", text).strip().lstrip(",;: ")
    return text if _speakable(text) else ""


def _unless_too_long(number: re.Match) -> str:
    digits = sum(ch.isdigit() for ch in number[0])
    return number[0] if digits <= MAX_DIGITS_SAID else f"a {digits} digit number"


# ---------------------------------------------------------------------------------------------------
# Synthesis


class ModelLoadError(RuntimeError):
    """A voice that cannot be loaded; the message is one line naming the file and the fix."""


VOLUME_STEP_DB = 3.0  # each volume step below 10: full scale (the peak-normalized voice) is 10


def gain(volume: int) -> float:
    """The factor on the voice's samples at `volume` (1 to 10): 10 → 1.0, 8 → 0.5 (−6 dB), 1 → 0.04."""
    return 10 ** (-VOLUME_STEP_DB * (10 - volume) / 20)


class PiperTts:
    """Piper voice: `build()` loads it, `synthesize()` yields float32 audio per sentence.

    `[tts] threads` is onnxruntime's intra-op thread count: 1 leaves the other core to the recognizer
    and the LLM; synthesis runs several times faster than real time even so (scripts/bench_tts.py).
    """

    def __init__(self, cfg: TtsConfig):
        self.cfg = cfg
        self.voice = None  # piper.PiperVoice after build()
        self.length_scale = cfg.length_scale  # the speaking rate now: "speak slower" (voice.py) sets it
        self.volume = cfg.volume  # 1 to 10 now: "speak more quietly" (voice.py) sets it

    def build(self) -> PiperTts:
        self.voice = load_voice(Path(self.cfg.voice_path), self.cfg.threads)
        return self

    @property
    def sample_rate(self) -> int:
        """Rate of the audio `synthesize` yields, in Hz (22050 for medium voices)."""
        return self._voice().config.sample_rate

    def synthesize(self, text: str, cancel: threading.Event | None = None) -> Iterator[np.ndarray]:
        """Yield (n,) float32 audio in [-1, 1] at `sample_rate`, one array per sentence of `text` as
        soon as it is ready (no pause added: the pipeline adds `clause_pause_ms` between clauses).
        Setting `cancel` (from any thread) stops it promptly: the inference running then is
        terminated and nothing more is yielded."""
        voice = self._voice()
        cancel = cancel or threading.Event()
        run_options, done = _terminating_run_options(cancel)
        try:
            for phonemes in voice.phonemize(text):
                if cancel.is_set():
                    return
                if not phonemes:
                    continue
                audio = self._infer(voice.phonemes_to_ids(phonemes), run_options, cancel)
                if audio is None:
                    return
                yield audio
        finally:
            done.set()

    def _infer(self, ids: list[int], run_options, cancel: threading.Event) -> np.ndarray | None:
        """Phoneme ids → peak-normalized float32 audio (piper's default) at `volume`, None when
        cancelled."""
        import onnxruntime

        config = self._voice().config
        args = {
            "input": np.asarray([ids], dtype=np.int64),  # (1, T)
            "input_lengths": np.asarray([len(ids)], dtype=np.int64),
            "scales": np.asarray(
                [config.noise_scale, self.length_scale, config.noise_w_scale], dtype=np.float32
            ),
        }
        if config.num_speakers > 1:
            args["sid"] = np.asarray([config.default_speaker_id], dtype=np.int64)
        try:
            audio = self._voice().session.run(None, args, run_options)[0].squeeze()
        except onnxruntime.capi.onnxruntime_pybind11_state.Fail:
            if cancel.is_set():
                return None  # terminated mid-inference by the cancel watcher
            raise
        if cancel.is_set():
            return None
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        audio = audio / peak if peak > 1e-8 else np.zeros_like(audio)
        return (np.clip(audio, -1.0, 1.0) * gain(self.volume)).astype(np.float32)

    def _voice(self):
        if self.voice is None:
            raise RuntimeError("PiperTts.build() must be called before use")
        return self.voice


def load_voice(model: Path, threads: int = 1):
    """A piper.PiperVoice with onnxruntime limited to `threads`; every failure is a `ModelLoadError`."""
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    config_path = Path(f"{model}.json")
    for path, what in ((model, "voice model"), (config_path, "voice config")):
        if not path.is_file():
            raise ModelLoadError(f"{path}: {what} not found; fix: set [tts] voice to an existing .onnx file")
    try:
        config = PiperConfig.from_dict(json.loads(config_path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ModelLoadError(
            f"{config_path}: not a valid piper voice config ({gist(err)}); fix: put the .onnx.json "
            "that came with the voice beside it"
        ) from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only
    try:
        session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    except Exception as err:  # onnxruntime raises its own InvalidProtobuf / Fail / RuntimeException
        raise ModelLoadError(
            f"{model}: cannot load piper voice ({gist(err)}); fix: re-download the voice "
            "or point [tts] voice at a valid .onnx"
        ) from None
    return PiperVoice(session=session, config=config)


def _terminating_run_options(cancel: threading.Event):
    """onnxruntime RunOptions whose `terminate` flag follows `cancel`, so a cancel interrupts an
    inference already running. A watcher thread polls `cancel` every 10 ms until `done` is set."""
    import onnxruntime

    run_options, done = onnxruntime.RunOptions(), threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            if cancel.is_set():
                run_options.terminate = True
                return

    threading.Thread(target=watch, name="tts-cancel-watch", daemon=True).start()
    return run_options, done


def synthesize_ahead(tts: PiperTts, text: str, ahead: int = 2) -> Iterator[np.ndarray]:
    """`tts.synthesize(text)` made on a thread of its own, up to `ahead` sentences ahead of the
    caller, who may play one while the next is made. Its errors come out of the iteration."""
    pieces: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()  # the caller went away (an error while playing, Ctrl-C)

    def make() -> None:
        try:
            for piece in tts.synthesize(text, stop):
                pieces.put(piece)
            pieces.put(None)
        except Exception as err:  # noqa: BLE001 - handed to the caller, raised there
            pieces.put(err)

    maker = threading.Thread(target=make, name="tts-ahead", daemon=True)
    maker.start()
    try:
        while (piece := pieces.get()) is not None:
            if isinstance(piece, Exception):
                raise piece
            yield piece
    finally:
        stop.set()
        while maker.is_alive():  # unblock a maker waiting on a full queue
            with contextlib.suppress(queue.Empty):
                pieces.get(timeout=0.05)
