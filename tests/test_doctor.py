"""`assistant doctor`'s LLM check: the real model must load and prefill, in a child process, and a
broken or crashing llama.cpp is one line with a fix."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assistant import doctor
from assistant.config import AsrConfig, BargeinConfig, Config, LlmConfig, MemoryConfig


def test_the_embedded_llm_loads_and_prefills():
    detail = doctor.check_llm(Config())
    assert detail.startswith(f"{LlmConfig().model_path.name} loads and prefills (")
    assert int(detail.split("(")[1].split()[0]) > 10  # the system prompt's tokens, counted by the child


def test_a_truncated_model_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "truncated.gguf"
    path.write_bytes(LlmConfig().model_path.read_bytes()[:2_000_000])
    with pytest.raises(RuntimeError) as err:
        doctor.check_llm(Config(llm=LlmConfig(model=str(path))))
    message = str(err.value)
    assert message.startswith(f"cannot load LLM model {path}") and "\n" not in message


def test_a_crash_in_the_child_is_reported_with_the_fix(monkeypatch):
    # What a llama.cpp built with AMX kernels does on the first prefill (scripts/setup.sh): SIGSEGV.
    monkeypatch.setattr(doctor, "LLM_CHECK", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    ok, what, detail = doctor._guarded("LLM model", lambda: doctor.check_llm(Config()))
    assert not ok and what == "LLM model"
    assert detail == (
        "llama.cpp crashed (signal 11) on its first prefill; "
        "fix: run scripts/setup.sh again, which builds it for this CPU"
    )


def test_the_echo_check_names_the_canceller_and_the_onset_detectors_filter():
    assert doctor._echo(Config()) == "webrtc, with the onset detector's linear filter (libspeexdsp)"
    off = Config().model_copy(update={"bargein": BargeinConfig(echo_cancel="off")})
    assert doctor._echo(off).startswith("off: the raised VAD threshold")
    disabled = Config().model_copy(update={"bargein": BargeinConfig(enabled=False)})
    assert "ignored" in doctor._echo(disabled)  # half duplex, not the raised threshold


def test_a_missing_libspeexdsp_is_one_line_with_the_fix(monkeypatch):
    from assistant.audio import echo

    def missing():
        raise OSError("libspeexdsp not found (apt install libspeexdsp1, or pip install speexdsp-ns)")

    monkeypatch.setattr(echo, "load_speexdsp", missing)
    ok, what, detail = doctor._guarded("echo cancellation", lambda: doctor._echo(Config()))
    assert not ok and what == "echo cancellation" and "\n" not in detail
    assert detail.endswith("for the onset detector; or set [bargein] onset_detector = false")


def test_the_recognizer_check_checks_the_rescoring_model_when_rescoring_is_on(tmp_path):
    assert "rescored" not in doctor._asr(Config())  # off by default: nothing more to load
    on = Config(asr=AsrConfig(rescore_weight=0.3))
    assert doctor._asr(on).endswith(f"; its finals rescored by {on.asr.rescore_model_path.name}")
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model")
    ok, what, detail = doctor._guarded(
        "recognizer", lambda: doctor._asr(Config(asr=AsrConfig(rescore_weight=0.3, rescore_model=str(bad))))
    )
    assert not ok and what == "recognizer"
    assert detail == f"{bad} is not a GGUF file; fix: set [asr] rescore_model to a llama.cpp GGUF model"


def test_the_config_line_names_the_file_given_with_config(tmp_path, monkeypatch):
    # The file --config names, not the one the search order would find without it (none here).
    mine = tmp_path / "mine.toml"
    mine.write_text("[memory]\nwindow_turns = 3\n")
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(mine), "doctor"]
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_CONFIG"}
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert result.stdout.splitlines()[0] == f"ok   config: {mine}"
    problems = sum(line.startswith("FIX") for line in result.stdout.splitlines())
    ending = {0: "all good", 1: "1 problem to fix"}.get(problems, f"{problems} problems to fix")
    assert result.stdout.splitlines()[-1] == ending  # not "2 problem(s) to fix"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    assert next(doctor.run_checks(Config())) == (True, "config", "built-in defaults")


def test_the_memory_check_notes_a_window_the_embedded_model_copies_from(tmp_path):
    """A config.toml copied from before 2026-12-06 keeps window_turns = 8 and the copied answers."""

    def memory_line(**memory) -> str:
        cfg = Config(memory=MemoryConfig(path=str(tmp_path / "memory.db"), **memory))
        return doctor._memory(cfg)

    assert memory_line() == f"{tmp_path / 'memory.db'} (0 turns)"
    assert "note: window_turns = 8: the embedded model copies" in memory_line(window_turns=8)


@pytest.mark.parametrize(
    ("zone", "says"),
    [
        ("America/New_York", "America/New_York: sunrise and sunset are said for New York"),
        ("Etc/UTC", "Etc/UTC; note: no city to say sunrise and sunset for; fix: set your own zone"),
    ],
)
def test_the_time_zone_sunrise_and_sunset_go_by_is_named(monkeypatch, zone, says):
    monkeypatch.setenv("TZ", zone)  # read as the zone's name, as `clock.local_zone` does
    assert doctor._time_zone().startswith(says)


def test_the_places_check_reads_geonames_as_the_pipeline_does():
    checks = {what: (ok, detail) for ok, what, detail in doctor.run_checks(Config()) if what == "places"}
    assert checks["places"] == (
        True,
        "GeoNames: 252 countries, 34006 cities: The capital of Peru is Lima. The capital of Texas is Austin."
        " The official languages of Peru are Spanish and Quechua.",
    )
