"""The endpointer on synthesized speech with known boundaries: silence + espeak-ng speech + silence."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf
from conftest import load_script
from scipy.signal import resample_poly

from assistant.config import VadConfig
from assistant.vad import (
    Endpointer,
    SpeechAudio,
    SpeechEnd,
    SpeechStart,
    State,
    level_db,
    passes_energy_gate,
)

SR = 16000  # Hz
NS_PER_SAMPLE = 1_000_000_000 // SR  # 62,500 ns: exact, so block stamps never round
MS = 1_000_000  # ns
T0 = 5_000_000_000_000  # ns, an arbitrary monotonic start
SPEECH_DB = -26.0  # dBFS RMS of the active speech, a typical close-talk level
TOLERANCE = 60 * MS

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")


def synthesize(text: str, path) -> np.ndarray:
    """espeak-ng (22,050 Hz) → float32 at 16 kHz."""
    subprocess.run(["espeak-ng", "-w", str(path), text], check=True, capture_output=True)
    wave, rate = sf.read(path, dtype="float32")
    assert rate == 22050
    return resample_poly(wave, 320, 441).astype(np.float32)


def active_span(clean: np.ndarray, below_peak_db: float = 40.0) -> tuple[int, int]:
    """First and last+1 sample of the 10 ms frames within `below_peak_db` of the loudest frame."""
    hop = SR // 100
    db = np.array([level_db(clean[i : i + hop]) for i in range(0, len(clean) - hop + 1, hop)])
    active = np.flatnonzero(db > db.max() - below_peak_db)
    return int(active[0] * hop), int((active[-1] + 1) * hop)


def sentence(text: str, tmp_path_factory) -> np.ndarray:
    """espeak-ng speech trimmed to its true boundaries, scaled to SPEECH_DB."""
    wave = synthesize(text, tmp_path_factory.mktemp("vad") / "s.wav")
    on, off = active_span(wave)
    wave = wave[on:off]
    return wave * np.float32(10 ** ((SPEECH_DB - level_db(wave)) / 20))


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    """A ~1.8 s sentence, voiced at both ends."""
    return sentence("Turn on the lights in the kitchen please", tmp_path_factory)


@pytest.fixture(scope="module")
def soft_edges(tmp_path_factory):
    """A sentence that starts and ends on a soft "s", which webrtcvad hears late and drops early in noise."""
    return sentence("Set a timer for ten minutes", tmp_path_factory)


def scene(clip, lead_s=1.0, tail_s=1.2, snr_db=None, seed=0):
    """silence + clip + silence with white noise (SNR to the clip, or -70 dBFS) → (signal, on, off)."""
    lead, tail = int(lead_s * SR), int(tail_s * SR)
    signal = np.concatenate([np.zeros(lead), clip, np.zeros(tail)]).astype(np.float32)
    noise_db = -70.0 if snr_db is None else level_db(clip) - snr_db
    noise = np.random.default_rng(seed).standard_normal(len(signal)) * 10 ** (noise_db / 20)
    return (signal + noise).astype(np.float32), lead, lead + len(clip)


def endpointer(**overrides) -> Endpointer:
    return Endpointer(VadConfig(**overrides)).build()


def run(ep: Endpointer, signal: np.ndarray, block: int = 320) -> list:
    """Feed `signal` in blocks, each stamped with the monotonic time of its first sample."""
    events = []
    for i in range(0, len(signal), block):
        events += ep.accept(signal[i : i + block], T0 + i * NS_PER_SAMPLE)
    return events


def t(sample: int) -> int:
    return T0 + sample * NS_PER_SAMPLE


def utterances(events) -> list[tuple[SpeechStart, SpeechEnd]]:
    starts = [e for e in events if isinstance(e, SpeechStart)]
    ends = [e for e in events if isinstance(e, SpeechEnd)]
    assert len(starts) == len(ends)
    return list(zip(starts, ends, strict=True))


@pytest.mark.parametrize("clip", ["speech", "soft_edges"])
@pytest.mark.parametrize("snr_db", [None, 20, 15])
def test_boundaries_within_60_ms(request, clip, snr_db):
    signal, on, off = scene(request.getfixturevalue(clip), snr_db=snr_db)
    [(start, end)] = utterances(run(endpointer(), signal))
    assert abs(start.t_ns - t(on)) <= TOLERANCE
    assert abs(end.t_ns_speech_end - t(off)) <= TOLERANCE
    assert end.reason == "silence"


def test_a_filter_tail_over_digital_silence_does_not_stretch_the_end(speech):
    """Over exact zeros (a virtual or muted mic) the noise floor is -120 dBFS; the faint decaying tail
    a filter leaves after speech (an echo canceller's high-pass: -56 to -100 dBFS) is not speech."""
    lead, tail_s = np.zeros(SR), 0.15
    n = int(tail_s * SR)
    decay_db = np.linspace(-56.0, -100.0, n)  # what AEC3's output does after speech ends (measured)
    tail = np.random.default_rng(1).standard_normal(n) * 10 ** (decay_db / 20)
    signal = np.concatenate([lead, speech, tail, np.zeros(SR)]).astype(np.float32)
    [(_, end)] = utterances(run(endpointer(), signal))
    assert abs(end.t_ns_speech_end - t(len(lead) + len(speech))) <= TOLERANCE


def test_digital_silence_is_never_voiced(speech):
    """Right after loud speech webrtcvad's hangover calls the next frames voiced, exact zeros too."""
    ep = endpointer()
    loud = speech[: len(speech) // 2]  # cut mid-sentence: the hangover is at its longest
    ep.accept(loud, T0)
    t_ns, voicing = T0 + len(loud) * NS_PER_SAMPLE, []
    for _ in range(20):
        ep.accept(np.zeros(ep.frame_len, np.float32), t_ns)
        voicing += ep.recent_voicing[-1:]  # (empty once the endpoint fires and the window is reset)
        t_ns += ep.frame_len * NS_PER_SAMPLE
    assert not any(voicing)


def test_preroll_keeps_the_onset(speech):
    signal, on, _ = scene(speech)
    [(start, _)] = utterances(run(endpointer(preroll_ms=300), signal))
    assert start.audio_t_ns <= t(on) - 100 * MS
    assert start.audio_t_ns >= start.t_ns - 300 * MS
    first = (start.audio_t_ns - T0) // NS_PER_SAMPLE
    np.testing.assert_array_equal(start.audio[:1000], signal[first : first + 1000])


def test_a_longer_preroll_asked_for_reaches_further_back_and_can_be_given_back(speech):
    """`set_preroll` (barge-in, while the gate judges a signal that shows the voice late): the
    utterance starts that much before the onset; None goes back to `preroll_ms`."""
    signal, _, _ = scene(speech)
    starts = {}
    for ms in (None, 700):
        ep = endpointer(preroll_ms=300)
        ep.set_preroll(ms)
        [(starts[ms], _)] = utterances(run(ep, signal))
    assert starts[None].t_ns - starts[None].audio_t_ns <= 300 * MS
    assert starts[700].t_ns - starts[700].audio_t_ns >= 690 * MS
    assert starts[700].t_ns == starts[None].t_ns  # the onset itself is judged as before
    ep = endpointer(preroll_ms=300)
    ep.set_preroll(700)
    ep.set_preroll(None)
    [(start, _)] = utterances(run(ep, signal))
    assert start.audio_t_ns == starts[None].audio_t_ns


def test_speech_just_after_a_blip_reaches_back_over_it(speech):
    """A word too short to confirm alone ("Stop." over the answer, its start held under the echo
    gate), then within end_silence_ms the rest: the utterance is judged from the rest's onset, but
    its audio starts the pre-roll before the word's. A longer pause: the pre-roll before the rest."""
    word = speech[: SR * 3 // 20]  # 150 ms: voiced, under min_speech_ms (250)
    for pause_ms in (200, 500):
        signal, on, _ = scene(np.concatenate([word, np.zeros(SR * pause_ms // 1000, np.float32), speech]))
        [(start, _)] = utterances(run(endpointer(preroll_ms=300), signal))
        rest_on = on + len(word) + SR * pause_ms // 1000
        assert abs(start.t_ns - t(rest_on)) <= TOLERANCE  # judged on the rest
        first = (start.audio_t_ns - T0) // NS_PER_SAMPLE
        np.testing.assert_array_equal(start.audio, signal[first : first + len(start.audio)])  # gapless
        if pause_ms == 200:
            assert abs(start.audio_t_ns - t(on - SR * 3 // 10)) <= TOLERANCE  # the word's pre-roll
        else:
            assert abs(start.t_ns - start.audio_t_ns - 300 * MS) <= TOLERANCE  # the rest's own


def test_audio_is_gapless_and_ends_at_the_endpoint(speech):
    signal, _, _ = scene(speech)
    events = run(endpointer(), signal)
    start, end = events[0], events[-1]
    audio = np.concatenate([start.audio, *[e.samples for e in events if isinstance(e, SpeechAudio)]])
    first = (start.audio_t_ns - T0) // NS_PER_SAMPLE
    np.testing.assert_array_equal(audio, signal[first : first + len(audio)])
    assert start.audio_t_ns + len(audio) * NS_PER_SAMPLE == end.t_ns_endpoint


@pytest.mark.parametrize("block", [160, 333])
def test_the_events_carry_what_is_heard_and_the_decisions_stay_the_samples(speech, block):
    """`heard` (the linear echo filter's output over an answer) goes to the recognizer, sample for
    sample in its place, while webrtcvad and the gate judge `samples`: events as without it."""
    signal, _, _ = scene(speech)
    heard = np.random.default_rng(1).standard_normal(len(signal)).astype(np.float32) * 0.01
    ep, events = endpointer(), []
    for i in range(0, len(signal), block):
        events += ep.accept(signal[i : i + block], T0 + i * NS_PER_SAMPLE, heard[i : i + block])
    timing = [e[:2] for e in summary(events)]  # the audio differs by design
    assert timing == [e[:2] for e in summary(run(endpointer(), signal))] and len(timing) > 2
    start = events[0]
    audio = np.concatenate([start.audio, *[e.samples for e in events if isinstance(e, SpeechAudio)]])
    first = (start.audio_t_ns - T0) // NS_PER_SAMPLE
    np.testing.assert_array_equal(audio, heard[first : first + len(audio)])
    with pytest.raises(ValueError, match="heard"):
        ep.accept(signal[:320], T0, heard[:160])


@pytest.mark.parametrize("kind", ["speech", "noise"])
def test_a_cough_length_blip_is_not_an_utterance(speech, kind):
    """130 ms of a vowel-rich stretch of speech, or of loud broadband noise, fades in and out."""
    n = 130 * SR // 1000
    middle = len(speech) // 2
    burst = speech[middle : middle + n] if kind == "speech" else np.random.default_rng(1).standard_normal(n)
    burst = (burst * np.hanning(n) ** 0.25 * (1 if kind == "speech" else 0.1)).astype(np.float32)
    signal, _, _ = scene(burst)
    assert run(endpointer(min_speech_ms=250), signal) == []
    longer, _, _ = scene(speech[middle : middle + 6 * n])  # the control: 780 ms of it is speech
    assert len(utterances(run(endpointer(min_speech_ms=250), longer))) == 1


def cough(ms: int, seed: int = 0) -> np.ndarray:
    """The benches' cough (band-limited noise, a fast attack and a decay) at SPEECH_DB."""
    return load_script("bench_vad").cough_noise(ms, seed, SPEECH_DB)


@pytest.mark.parametrize("ms", [300, 500])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_cough_as_long_as_a_word_is_not_an_utterance(ms, seed):
    """webrtcvad calls it voice for as long as it lasts, past min_speech_ms; it has no pitch."""
    signal, _, _ = scene(cough(ms, seed))
    assert run(endpointer(), signal) == []
    # the pitch is what keeps it out: without it, it is an utterance
    assert len(utterances(run(endpointer(min_pitched_ms=0), signal))) == 1


@pytest.mark.parametrize(
    ("text", "snr_db"),
    [("Stop.", None), ("Stop.", 20), ("Six.", None), ("Yes.", None), ("Yes.", 10), ("Yes.", 5)]
    + [("Turn on the lights in the kitchen please", snr) for snr in (10, 5)],
)
def test_a_word_webrtcvad_hears_is_pitched_enough(text, snr_db, tmp_path_factory):
    """Words of one syllable, and a sentence, with white noise under them down to where webrtcvad
    still hears them: the pitch check keeps none of them out, nor moves their onset."""
    signal, on, _ = scene(sentence(text, tmp_path_factory), snr_db=snr_db)
    [(start, _)] = utterances(run(endpointer(), signal))
    [(unchecked, _)] = utterances(run(endpointer(min_pitched_ms=0), signal))
    assert start.t_ns == unchecked.t_ns
    assert abs(start.t_ns - t(on)) <= 2 * TOLERANCE


def test_noise_that_never_pitches_is_let_go_after_max_utterance_s(speech):
    """Voiced noise with no pitch for longer than an utterance may be, then a sentence at once: the
    sentence is heard, and the noise before it is not carried along (it is let go every
    max_utterance_s, so what waits for a pitch stays bounded)."""
    noise = np.concatenate(
        [cough(1000, seed) / np.exp(-np.arange(SR) / (0.4 * SR)).clip(0.2) for seed in range(5)]
    )
    signal, _, _ = scene(np.concatenate([noise, speech]).astype(np.float32))
    [(start, _)] = utterances(run(endpointer(max_utterance_s=4.0), signal))
    assert len(start.audio) < (4.0 + 0.3 + 0.5) * SR  # at most max_utterance_s + pre-roll + the onset


@pytest.mark.parametrize("frame_ms", [10, 20, 30])
@pytest.mark.parametrize("end_silence_ms", [300, 700])
def test_endpoint_fires_after_end_silence(speech, frame_ms, end_silence_ms):
    signal, _, _ = scene(speech)
    [(_, end)] = utterances(run(endpointer(frame_ms=frame_ms, end_silence_ms=end_silence_ms), signal))
    waited = end.t_ns_endpoint - end.t_ns_speech_end
    assert end_silence_ms * MS <= waited < (end_silence_ms + frame_ms) * MS


def test_max_utterance_cuts_a_long_utterance(speech):
    signal, _, _ = scene(np.concatenate([speech, speech]))  # ~3.7 s of talking without a pause
    found = utterances(run(endpointer(max_utterance_s=1.5), signal))
    start, end = found[0]
    assert end.reason == "max_length"
    assert 1500 * MS <= end.t_ns_endpoint - start.t_ns < 1520 * MS
    assert found[-1][1].reason == "silence"  # what follows the cut is heard as a new utterance


def summary(events) -> list[tuple]:
    """Events as comparable tuples (the dataclasses hold arrays)."""
    out = []
    for e in events:
        if isinstance(e, SpeechStart):
            out.append(("start", e.t_ns, e.audio_t_ns, e.audio.tobytes()))
        elif isinstance(e, SpeechAudio):
            out.append(("audio", e.t_ns, e.samples.tobytes()))
        else:
            out.append(("end", e.t_ns_speech_end, e.t_ns_endpoint, e.reason))
    return out


def test_block_size_does_not_change_the_events(speech):
    signal, _, _ = scene(speech, snr_db=20)
    expected = summary(run(endpointer(), signal, block=len(signal)))
    assert any(e[0] == "end" for e in expected)
    for block in (1, 7, 160, 333, 1000, 4801):
        assert summary(run(endpointer(), signal, block=block)) == expected, block


def test_reset_forgets_the_stream(speech):
    signal, on, _ = scene(speech)
    ep = endpointer()
    run(ep, signal[: on + SR // 2])  # stop mid-utterance
    assert ep.state is State.SPEECH
    ep.reset()
    assert ep.state is State.SILENCE
    assert summary(run(ep, signal)) == summary(run(endpointer(), signal))


def test_an_input_lost_mid_utterance_ends_it_where_the_speech_stopped(speech):
    """A microphone that fails mid-question: the question ends at once, not when (if ever) the
    device is back; what follows is a new stream."""
    signal, on, off = scene(speech)
    ep = endpointer()
    cut = on + SR  # one second into the speech
    events = run(ep, signal[:cut])
    assert ep.state is State.SPEECH
    [end] = ep.input_lost()
    assert end.reason == "input_lost" and ep.state is State.SILENCE
    assert abs(end.t_ns_speech_end - t(cut)) <= 60 * MS and end.t_ns_endpoint == t(cut)
    assert not any(isinstance(e, SpeechEnd) for e in events)  # it was still open
    assert ep.input_lost() == []  # nothing in progress: nothing to end
    assert summary(run(ep, signal)) == summary(run(endpointer(), signal))


def test_an_input_lost_before_speech_is_confirmed_drops_the_onset(speech):
    signal, on, _ = scene(speech)
    ep = endpointer()
    run(ep, signal[: on + 5 * SR // 1000 * 20])  # 100 ms in: short of min_speech_ms
    assert ep.state is State.MAYBE
    assert ep.input_lost() == [] and ep.state is State.SILENCE


def gated(reference_db: float | None, threshold_db: float | None = 10.0) -> Endpointer:
    ep = endpointer()
    ep.set_gate(threshold_db)
    ep.set_reference_level(reference_db)
    return ep


def test_energy_gate_ignores_echo_level_speech(speech):
    """The reference is the echo's level; per-frame speech levels spread ±10 dB around it."""
    echo_db = SPEECH_DB - 20.0
    echo_scene, _, _ = scene(speech * np.float32(10 ** (-20.0 / 20)))
    assert len(utterances(run(endpointer(), echo_scene))) == 1  # ungated, the echo is speech
    assert run(gated(echo_db), echo_scene) == []
    assert len(utterances(run(gated(None), echo_scene))) == 1  # no reference yet: the gate is open
    assert len(utterances(run(gated(echo_db, None), echo_scene))) == 1  # gate off: playback over

    user_scene, on, _ = scene(speech)  # the user, 20 dB above the echo
    [(start, _)] = utterances(run(gated(echo_db), user_scene))
    assert abs(start.t_ns - t(on)) <= TOLERANCE


def test_energy_gate_rule():
    assert passes_energy_gate(-20.0, -35.0, 10.0)
    assert not passes_energy_gate(-30.0, -35.0, 10.0)
    assert passes_energy_gate(-60.0, None, 10.0)  # no reference yet
    assert passes_energy_gate(-60.0, -35.0, None)  # gate off
    assert gated(-35.0).gate_level_db == -25.0  # what a frame must reach, as the bench traces it
    assert gated(None).gate_level_db is None and gated(-35.0, None).gate_level_db is None
    assert level_db(np.zeros(10)) == -120.0
    assert level_db(np.full(10, 0.1)) == pytest.approx(-20.0)


def test_accept_needs_build_and_mono():
    ep = Endpointer(VadConfig())
    with pytest.raises(RuntimeError, match="build"):
        ep.accept(np.zeros(320, np.float32), T0)
    with pytest.raises(ValueError, match="mono"):
        ep.build().accept(np.zeros((320, 2), np.float32), T0)
