"""Config errors are one line naming file, key, problem and fix, with exit code 2."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from assistant import config

REPO = Path(__file__).resolve().parent.parent


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


def test_shipped_config_toml_equals_the_built_in_defaults():
    shipped = config.load(REPO / "config.toml")
    assert shipped == config.Config()


def test_every_key_in_config_toml_is_commented():
    lines = (REPO / "config.toml").read_text().splitlines()
    for i, line in enumerate(lines):
        if "=" in line and not line.lstrip().startswith("#"):
            assert lines[i - 1].lstrip().startswith("#") or "=" in lines[i - 1], f"uncommented key: {line}"


def test_config_toml_has_every_model_field():
    data = tomllib.loads((REPO / "config.toml").read_text())
    for section, model in config.Config.model_fields.items():
        assert set(data[section]) == set(model.annotation.model_fields), section


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[memory]\nwindow_turns = 0\n", "[memory] window_turns"),
        ("[memory]\nwindow_turns = 'eight'\n", "[memory] window_turns"),
        ("[memry]\nwindow_turns = 3\n", "memry: unknown key"),
        ("[memory]\nwindow_turns = 3\n[llm]\ntemprature = 0.5\n", "fix: did you mean temperature?"),
        ("[memry]\nwindow_turns = 3\n", "fix: did you mean memory?"),
        ("[llm]\nbanana = 1\n", "unknown key (got 1); fix: remove it or check its spelling"),
        ("[llm]\nmodel = '/nope/model.gguf'\n", "[llm] model: file not found"),
        ("[asr]\nchunk_ms = 300\n", "[asr] chunk_ms"),
        ("[vad]\nframe_ms = 25\n", "[vad] frame_ms"),
        ("[tts]\nvoice = '/nope/voice.onnx'\n", "[tts] voice: file not found"),
        (
            "[tts]\nvolume = 11\n",
            "[tts] volume: Input should be less than or equal to 10 (got 11); fix: use a value of at most 10",
        ),
        ("[memory\n", "not valid TOML"),
        ("[wake]\nphrases = ['computer', '?']\n", "[wake] phrases: a wake phrase with no words"),
        ("[llm]\nmax_answer_tokens = 2000\n", "fix: lower it to 1024 or less, or raise [llm] n_ctx to 4000"),
    ],
)
def test_bad_config_is_one_clear_line(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(config.ConfigError) as err:
        config.load(path)
    message = str(err.value)
    assert "\n" not in message
    assert str(path) in message and expected in message and "fix:" in message


@pytest.mark.parametrize(
    ("section", "key", "example"),
    [
        ("memory", "path", "memory.db"),
        (
            "metrics",
            "latency_log",
            "latency.jsonl",
        ),  # was accepted, then failed at every turn with a traceback
        ("llm", "model", "model.gguf"),  # was "file not found" of a folder that is there
    ],
)
def test_a_file_key_naming_a_folder_is_one_clear_line(tmp_path, section, key, example):
    path = _write(tmp_path, f"[{section}]\n{key} = '{tmp_path}'\n")
    with pytest.raises(config.ConfigError) as err:
        config.load(path)
    expected = f"[{section}] {key}: {tmp_path} is a folder, not a file"
    assert expected in str(err.value) and str(err.value).endswith(
        f"fix: name a file, e.g. {tmp_path / example}"
    )


def test_a_config_file_that_cannot_be_read_names_the_right_fix(tmp_path, monkeypatch):
    """All three said "fix: check its permissions", or "unset ASSISTANT_CONFIG" of a --config."""
    monkeypatch.delenv("ASSISTANT_CONFIG", raising=False)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b"[llm]\nsystem_prompt = 'Caf\xe9'\n")
    for path, expected in (
        (
            tmp_path,
            f"{tmp_path}: a folder, not a config file; fix: name the file, e.g. {tmp_path / 'config.toml'}",
        ),
        (
            latin1,
            f"{latin1}: not UTF-8 text (invalid continuation byte at byte "
            f"{latin1.read_bytes().index(0xE9)}); fix: save it as UTF-8",
        ),
        (tmp_path / "gone.toml", f"{tmp_path / 'gone.toml'}: config file not found; fix: check the path"),
    ):
        with pytest.raises(config.ConfigError) as err:
            config.load(path)
        assert str(err.value) == expected
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(config.ConfigError, match="fix: check the path or unset ASSISTANT_CONFIG$"):
        config.load()


def test_relative_file_keys_are_taken_from_the_config_files_folder(tmp_path, monkeypatch):
    (tmp_path / "cfg").mkdir()
    path = _write(
        tmp_path / "cfg", "[memory]\npath = 'state/memory.db'\n[metrics]\nlatency_log = '~/lat.jsonl'\n"
    )
    monkeypatch.chdir(tmp_path)  # elsewhere: `path = "memory.db"` was a new memory in every folder
    cfg = config.load(path.relative_to(tmp_path))
    assert cfg.memory.db_path == tmp_path / "cfg" / "state" / "memory.db"
    assert cfg.metrics.latency_log_path == Path.home() / "lat.jsonl"  # ~ is not relative


def test_env_var_selects_the_file(tmp_path, monkeypatch):
    path = _write(tmp_path, "[memory]\nwindow_turns = 3\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(path))
    assert config.load().memory.window_turns == 3


def test_overrides_win_over_the_file(tmp_path):
    path = _write(tmp_path, "[audio]\ninput_device = 'a'\n")
    cfg = config.load(path, {"audio": {"input_device": 3, "output_device": None}})
    assert cfg.audio.input_device == 3 and cfg.audio.output_device == ""


@pytest.mark.parametrize("command", ["doctor", "memory", "latency", "transcribe", "chat", "run", "say"])
def test_cli_exits_2_with_one_line_on_bad_config(tmp_path, command):
    path = _write(tmp_path, "[memory]\nmax_item_chars = -5\n")
    args = {"memory": ["memory", "show"], "transcribe": ["transcribe", "x.wav"], "say": ["say", "hi"]}
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(path), *args.get(command, [command])]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "max_item_chars" in lines[0] and "Traceback" not in result.stderr
