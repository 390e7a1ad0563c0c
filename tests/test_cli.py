"""Every command has help with an example and a mention in the README, and the commands that need
no microphone work end to end: say, transcribe, chat, memory (on a real SQLite file), latency."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jiwer
import numpy as np
import pytest
import soundfile as sf
from conftest import RECORD_RATE

from assistant import cli
from assistant.config import MemoryConfig
from assistant.memory import Memory

REPO = Path(__file__).resolve().parent.parent
COMMANDS = sorted(cli.EXAMPLES)


def test_every_command_is_registered_with_an_example():
    parser = cli._parser()
    registered = set(parser._subparsers._group_actions[0].choices)
    assert registered == set(cli.EXAMPLES)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_shows_an_example(command):
    result = subprocess.run(
        [sys.executable, "-m", "assistant.cli", command, "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "example:" in result.stdout and f"assistant {command}" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_documented_in_readme(command):
    assert f"assistant {command}" in (REPO / "README.md").read_text()


def test_every_config_key_is_documented_in_readme():
    readme = (REPO / "README.md").read_text()
    from assistant.config import Config

    for section, field in Config.model_fields.items():
        for key in field.annotation.model_fields:
            assert f"`{key}`" in readme, f"[{section}] {key} missing from README"


def _cli(*args: str, config: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(config), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, input=stdin, cwd=config.parent)


@pytest.fixture
def private_config(tmp_path) -> Path:
    """A config whose memory and latency log are files of this test's own."""
    config = tmp_path / "config.toml"
    config.write_text(
        f"[memory]\npath = '{tmp_path / 'memory.db'}'\n[metrics]\nlatency_log = '{tmp_path / 'lat.jsonl'}'\n"
    )
    return config


def test_say_writes_speech_that_transcribe_reads_back(private_config):
    # The real voice and the real recognizer: what one says, the other must hear.
    said = _cli("say", "Set a timer for ten minutes.", "--output", "said.wav", config=private_config)
    assert said.returncode == 0, said.stderr
    audio, rate = sf.read(private_config.parent / "said.wav")
    assert rate == 22050 and 1.0 < len(audio) / rate < 3.0
    heard = _cli("transcribe", "--json", "said.wav", config=private_config)
    assert heard.returncode == 0, heard.stderr
    result = json.loads(heard.stdout)
    assert jiwer.wer("set a timer for ten minutes", result["text"]) <= 0.2, result


def test_transcribe_reads_standard_input_given_as_a_dash(private_config):
    said = subprocess.run(
        ["espeak-ng", "--stdout", "turn on the kitchen lights"], capture_output=True, check=True
    )
    argv = [
        sys.executable,
        "-m",
        "assistant.cli",
        "--config",
        str(private_config),
        "transcribe",
        "--json",
        "-",
    ]
    heard = subprocess.run(
        argv, input=said.stdout, capture_output=True, timeout=300
    )  # "audio file not found: -"
    assert heard.returncode == 0, heard.stderr
    assert jiwer.wer("turn on the kitchen lights", json.loads(heard.stdout)["text"]) <= 0.2
    empty = subprocess.run(argv, input=b"", capture_output=True, timeout=300)
    assert (
        empty.returncode == 1
        and empty.stderr == b"assistant: standard input is empty: nothing was piped in\n"
    )


def test_transcribe_names_each_unreadable_file_once_on_its_own_line(private_config):
    folder = private_config.parent / "clips.wav"
    folder.mkdir()
    (private_config.parent / "song.ogg").write_text(
        "not audio"
    )  # (libmpg123 adds notes of its own to an .mp3)
    heard = _cli("transcribe", "clips.wav", "song.ogg", config=private_config)
    assert heard.returncode == 1 and heard.stdout == ""
    folder_line, ogg_line = heard.stderr.splitlines()
    assert folder_line == "assistant: clips.wav is a folder, not an audio file"  # was "not found"
    assert ogg_line.count("song.ogg") == 2 and ogg_line.endswith("ffmpeg -i song.ogg song.wav)")  # the fix


@pytest.mark.parametrize("text", ["", "   ", "🙂🙂", "**"])
def test_say_with_nothing_to_say_is_one_line_not_a_crash(private_config, text):
    """ "" crashed in numpy ("need at least one array to concatenate"); "🙂🙂" was read out as
    "slightly smiling face", where an answer's emoji are left out."""
    said = _cli("say", text, "--output", "said.wav", config=private_config)
    assert said.returncode == 1 and not (private_config.parent / "said.wav").exists()
    assert said.stderr.count("\n") == 1 and "nothing to say" in said.stderr, said.stderr


def test_say_aloud_speaks_every_sentence_on_the_speaker(private_config, pulse):
    # Played sentence by sentence as each is made (it waited for the whole text before).
    start = time.perf_counter_ns()
    said = _cli("say", "Set a timer for ten minutes. Turn on the kitchen lights.", config=private_config)
    assert said.returncode == 0 and said.stderr == "", said.stderr
    heard = pulse.speaker.since(start)
    voiced = np.abs(heard) > 0.01
    assert 2.0 < np.ptp(voiced.nonzero()[0]) / RECORD_RATE < 6.0, "not the two sentences' length"
    sf.write(private_config.parent / "heard.wav", heard, RECORD_RATE)
    text = json.loads(_cli("transcribe", "--json", "heard.wav", config=private_config).stdout)["text"]
    assert jiwer.wer("set a timer for ten minutes turn on the kitchen lights", text) <= 0.3, (
        text
    )  # a sentence lost: 0.5


def test_say_reads_standard_input_given_as_a_dash(private_config):
    said = _cli(
        "say", "-", "--output", "piped.wav", config=private_config, stdin="Good morning.\nHow are you?\n"
    )
    assert said.returncode == 0, said.stderr
    audio, rate = sf.read(private_config.parent / "piped.wav")
    assert len(audio) / rate > 1.0, said.stdout  # both piped lines (1.3-2.1 s)
    heard = json.loads(_cli("transcribe", "--json", "piped.wav", config=private_config).stdout)["text"]
    assert "morning" in heard and len(heard.split()) >= 3, heard  # the recognizer, not the test, is weak
    empty = _cli("say", "-", config=private_config, stdin="")
    assert empty.returncode == 1 and empty.stderr.startswith("assistant: nothing to say in standard input")


def test_say_reads_text_as_an_answer_is_read(private_config):
    plain = _cli("say", "Good morning.", "--output", "plain.wav", config=private_config)
    marked = _cli("say", "**Good morning.** 🙂", "--output", "marked.wav", config=private_config)
    assert plain.returncode == 0 and marked.returncode == 0, marked.stderr
    seconds = [sf.info(private_config.parent / f).duration for f in ("plain.wav", "marked.wav")]
    assert abs(seconds[0] - seconds[1]) < 0.4, seconds  # "slightly smiling face" would add ~1 s


def test_chat_answers_each_line_remembers_the_turns_and_logs_their_latency(private_config):
    asked = "What do bees make?\nAnd cows?\nHow many cups in a gallon?\n"  # short answers: one line each
    chat = _cli("chat", "--mute", config=private_config, stdin=asked)
    assert chat.returncode == 0, chat.stderr
    answers = [
        line.removeprefix("assistant: ")
        for line in chat.stdout.splitlines()
        if line.startswith("assistant: ")
    ]
    assert len(answers) == 3 and all(answers) and answers[2] == "A gallon is 16 cups."

    exported = _cli("memory", "export", config=private_config)
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [(r["role"], r["text"]) for r in rows] == [
        ("user", "What do bees make?"),
        ("assistant", answers[0]),
        ("user", "And cows?"),
        ("assistant", answers[1]),
        ("user", "How many cups in a gallon?"),
        ("assistant", answers[2]),
    ]

    log = private_config.parent / "lat.jsonl"
    latency = _cli("latency", config=private_config)
    assert latency.returncode == 0, latency.stderr
    # the answer given without the LLM is quicker: the first line says the table mixes them
    assert (
        latency.stdout.splitlines()[0] == f"3 turns from {log} (2 answered by the LLM; without it: units 1)"
    )
    ttft = next(line for line in latency.stdout.splitlines() if line.startswith("| llm_ttft |"))
    assert ttft.split("|")[2].strip() == "2"
    llm = _cli("latency", "--llm", config=private_config)
    assert llm.stdout.splitlines()[0] == f"2 turns answered by the LLM from {log}", llm.stderr
    total = next(line for line in llm.stdout.splitlines() if line.startswith("| turn_total |"))
    assert total.split("|")[2].strip() == "2"
    # muted turns played nothing: no plot of an empty breakdown ("wrote" it, with a legend warning)
    plot = _cli("latency", "--plot", "plot.png", config=private_config)
    assert plot.returncode == 1 and not (private_config.parent / "plot.png").exists()
    assert plot.stderr.count("\n") == 1 and "nothing to plot" in plot.stderr, plot.stderr
    # a folder was written as FOLDER.png ("wrote FOLDER"); a .txt was matplotlib's list of formats;
    # `say --output` of a folder or an .mp3 was soundfile's TypeError or ValueError
    for command, name, problem in (
        (["latency", "--plot"], ".", ". is a folder; name a file in it, e.g. latency.png"),
        (["latency", "--plot"], "plot.txt", "plot.txt: the name must end with .png or .svg or .pdf"),
        (["say", "hi", "--output"], ".", ". is a folder; name a file in it, e.g. said.wav"),
        (["say", "hi", "--output"], "hi.mp3", "hi.mp3: the name must end with .wav"),
    ):
        bad = _cli(*command, name, config=private_config)
        assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.endswith(f"{problem}\n"), bad.stderr
    # --last 0 showed every turn; `memory show --last 0` said "no turns remembered"
    for command in (["latency"], ["memory", "show"]):
        zero = _cli(*command, "--last", "0", config=private_config)
        assert zero.returncode == 2 and "at least 1" in zero.stderr, zero.stderr


def test_a_second_chat_on_the_same_memory_stops_with_one_line_and_leaves_the_first_alone(private_config):
    # Two at once each saw the other's turns in its window ("count to 3" -> "The color of number six ...").
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(private_config), "chat", "--mute"]
    first = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=private_config.parent
    )
    try:
        first.stdin.write("What is the capital of France?\n")
        first.stdin.flush()
        assert first.stdout.readline().startswith("assistant: ")  # its turn is in memory
        second = _cli("chat", "--mute", config=private_config, stdin="Count to three.\n")
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr.count("\n") == 1, second.stderr
        assert f"another assistant (pid {first.pid}) holds this conversation" in second.stderr
        assert _cli("memory", "show", config=private_config).returncode == 0  # reading needs no claim
    finally:
        first.stdin.close()
        assert first.wait(timeout=60) == 0
    rows = [json.loads(line) for line in _cli("memory", "export", config=private_config).stdout.splitlines()]
    assert [r["text"] for r in rows if r["role"] == "user"] == ["What is the capital of France?"]
    again = _cli("chat", "--mute", config=private_config, stdin="Count to three.\n")
    assert again.returncode == 0, again.stderr  # the claim ended with the first chat


def test_chat_reads_a_line_that_is_not_utf8(private_config):
    # A Latin-1 "é" piped in failed the turn: "UnicodeEncodeError: ... surrogates not allowed".
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(private_config), "chat", "--mute"]
    chat = subprocess.run(argv, input=b"caf\xe9 au lait?\n", capture_output=True, timeout=300)
    assert chat.returncode == 0 and b"error" not in chat.stdout, chat.stdout
    exported = _cli("memory", "export", config=private_config).stdout.splitlines()
    assert json.loads(exported[0])["text"] == "caf\ufffd au lait?"


@pytest.mark.parametrize(
    ("flag", "needs"),
    [(["--output", "a.wav"], "--output needs --input"), (["--fast"], "--fast needs --input")],
)
def test_run_options_for_files_without_a_file_are_one_line(private_config, flag, needs):
    # --fast alone was ignored: the microphone was opened and listened at its own pace
    run = _cli("run", *flag, config=private_config)
    assert (
        run.returncode == 1 and run.stderr.startswith(f"assistant: {needs}") and run.stderr.count("\n") == 1
    )


def test_warnings_read_as_the_consoles_own_and_name_the_module_only_when_verbose(private_config):
    # A sound server that is not there: the speaker's warning at the start comes through the log.
    env = {**os.environ, "PULSE_SERVER": "unix:/nonexistent"}
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(private_config)]
    for flags, expected in (
        ([], "assistant: warning: no default output device"),
        (["-v"], "WARNING assistant."),
    ):
        chat = subprocess.run(
            [*argv, *flags, "chat"], input="Hello.\n", capture_output=True, text=True, env=env, timeout=300
        )
        said = [line for line in chat.stderr.splitlines() if "no default output device" in line]
        assert chat.returncode == 0 and said[0].startswith(expected), chat.stderr[:300]
        again = [line for line in chat.stdout.splitlines() if "no default output device" in line]
        assert len(said) == 1 and not again, again  # at the start, not again at the first answer


@pytest.fixture
def three_turns(private_config):
    """(config file, database path) with three turns remembered, the last one interrupted."""
    config, db = private_config, private_config.parent / "memory.db"
    memory = Memory(MemoryConfig(path=str(db))).build()
    memory.add("user", "what time is it")
    memory.add("assistant", "It is ten past three.")
    memory.add("user", "and tomorrow's weather", interrupted=True)
    memory.close()
    return config, db


def test_show_prints_the_newest_turns_oldest_first(three_turns):
    config, _ = three_turns
    result = _cli("memory", "show", "--last", "2", config=config)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == [
        "assistant: It is ten past three.",
        "     user: and tomorrow's weather [interrupted]",
    ]


def test_export_is_every_turn_as_json_lines(three_turns):
    config, _ = three_turns
    result = _cli("memory", "export", config=config)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["role"], r["text"], r["interrupted"]) for r in rows] == [
        ("user", "what time is it", False),
        ("assistant", "It is ten past three.", False),
        ("user", "and tomorrow's weather", True),
    ]


def test_lists_prints_each_list_kept_by_voice(three_turns):
    config, db = three_turns
    assert _cli("memory", "lists", config=config).stdout == f"no lists kept in {db}\n"
    memory = Memory(MemoryConfig(path=str(db))).build()
    memory.add_to_list("shopping", ["milk", "eggs"])
    memory.add_to_list("notes", ["your car is on level three"])
    memory.close()
    result = _cli("memory", "lists", config=config)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "shopping list (2 items):", "  milk", "  eggs", "notes (1 note):", "  your car is on level three"
    ]  # fmt: skip
    assert _cli("memory", "clear", "--yes", config=config).stdout == f"deleted 3 turns from {db}\n"
    assert _cli("memory", "lists", config=config).stdout == result.stdout  # the turns, not the lists


def test_about_prints_what_the_user_told_of_themselves(three_turns):
    config, db = three_turns
    assert _cli("memory", "about", config=config).stdout == f"nothing kept about you in {db}\n"
    memory = Memory(MemoryConfig(path=str(db))).build()
    memory.set_fact("name", "Sam")
    memory.set_fact("birthday", "03-03")
    memory.close()
    result = _cli("memory", "about", config=config)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["birthday: March 3", "name: Sam"]
    assert _cli("memory", "clear", "--yes", config=config).stdout == f"deleted 3 turns from {db}\n"
    assert _cli("memory", "about", config=config).stdout == result.stdout  # the turns, not the facts


def test_clear_asks_first_and_deletes_only_on_yes(three_turns):
    config, db = three_turns
    refused = _cli("memory", "clear", config=config, stdin="n\n")
    assert refused.returncode == 1 and refused.stdout.endswith("nothing deleted\n")
    assert f"Delete all 3 turns in {db}?" in refused.stdout
    assert len(_cli("memory", "export", config=config).stdout.splitlines()) == 3
    unasked = _cli("memory", "clear", config=config, stdin="")  # a script without --yes: was an EOFError
    assert (
        unasked.returncode == 1 and unasked.stderr == "" and "--yes deletes without asking" in unasked.stdout
    )
    assert len(_cli("memory", "export", config=config).stdout.splitlines()) == 3

    cased = _cli("memory", "clear", config=config, stdin=" Yes\n")  # only "y" was a yes
    assert cased.returncode == 0 and cased.stdout.endswith(f"deleted 3 turns from {db}\n")
    memory = Memory(MemoryConfig(path=str(db))).build()
    memory.add("user", "what time is it")
    memory.close()
    cleared = _cli("memory", "clear", "--yes", config=config)
    assert cleared.returncode == 0 and cleared.stdout == f"deleted 1 turn from {db}\n"
    assert _cli("memory", "export", config=config).stdout == ""
    assert _cli("memory", "show", config=config).stdout == f"no turns remembered in {db}\n"
    # Forgotten means gone from the disk too, not only from the table (secure_delete, WAL truncated).
    for path in (db, db.with_name(db.name + "-wal")):
        assert not path.exists() or b"ten past three" not in path.read_bytes()


def test_export_into_a_pipe_closed_early_ends_quietly(private_config):
    # `assistant memory export | head -1` printed "assistant: BrokenPipeError: [Errno 32] Broken pipe".
    memory = Memory(MemoryConfig(path=str(private_config.parent / "memory.db"))).build()
    for i in range(2000):  # ~500 kB of JSON: more than a pipe holds, so the export meets the closed end
        memory.add("user", f"turn {i} " + "x" * 200)
    memory.close()
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(private_config), "memory", "export"]
    export = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=private_config.parent)
    assert json.loads(export.stdout.readline())["text"].startswith("turn 0 ")
    export.stdout.close()  # as `head -1` does once it has its line
    assert export.wait(timeout=60) == 141 and export.stderr.read() == b""


def test_version_is_the_installed_packages():
    from importlib.metadata import version

    result = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout == f"assistant {version('assistant')}\n"
