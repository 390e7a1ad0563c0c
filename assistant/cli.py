"""The command line: a thin layer over the library. Every command has help with an example."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from assistant import config as config_mod
from assistant.errors import gist

EXAMPLES = {
    "run": "assistant run                     # listen on the microphone, answer aloud\n"
    "  assistant run --input q.wav --output a.wav --fast",
    "chat": "assistant chat                    # type, hear the answer\n  assistant chat --mute",
    "say": 'assistant say "Hello there" --output hello.wav',
    "transcribe": "assistant transcribe question.wav other.flac --json",
    "devices": "assistant devices",
    "latency": "assistant latency --last 50 --plot latency.png",
    "memory": "assistant memory show --last 20\n"
    "  assistant memory export > turns.jsonl\n"
    "  assistant memory clear --yes\n"
    "  assistant memory lists",
    "doctor": "assistant doctor",
}


class UserError(Exception):
    """A problem the user can fix, printed as one line (exit code 1)."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        # Without --verbose a warning reads as the console's own ("assistant: warning: ..."), not
        # "WARNING assistant.pipeline: ..." beside it; --verbose names the module.
        format="%(levelname)s %(name)s: %(message)s"
        if args.verbose
        else "assistant: %(levelname)s: %(message)s",
    )
    if not args.verbose:
        for level in (logging.WARNING, logging.ERROR):
            logging.addLevelName(level, logging.getLevelName(level).lower())
    try:
        return args.func(args) or 0
    except config_mod.ConfigError as err:
        print(f"assistant: config error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `memory export | head`: the reader has all it wanted
        # Python would report the pipe again while flushing stdout at exit; point it at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell tool killed by it
    except Exception as err:  # noqa: BLE001 - every failure becomes one readable line
        if args.verbose:
            raise
        print(f"assistant: {_one_line(err)}", file=sys.stderr)
        return 1


def _one_line(err: BaseException) -> str:
    """Ours as they are (one line that names the fix); another library's with its type, cut short."""
    if _is_ours(err):
        return gist(err, limit=None)
    name, text = type(err).__name__, gist(err)
    return text if text == name else f"{name}: {text}"


def _is_ours(err: BaseException) -> bool:
    return type(err).__module__.startswith("assistant") or isinstance(err, UserError)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("assistant")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="assistant",
        description="A local, real-time voice assistant. Nothing leaves this machine.",
    )
    parser.add_argument(
        "--config", metavar="PATH", help="config file (default: $ASSISTANT_CONFIG or ./config.toml)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging and full tracebacks")
    parser.add_argument("--version", action="version", version=f"assistant {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, func, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=f"example:\n  {EXAMPLES[name]}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(func=func)
        return p

    p = command("run", _cmd_run, "Listen on the microphone and answer aloud (Ctrl-C to quit).")
    p.add_argument(
        "--input",
        metavar="AUDIO",
        help="read the questions from an audio file (WAV, FLAC, Ogg/Opus, MP3) instead of the mic",
    )
    p.add_argument(
        "--output",
        type=_file_of(".wav", example="answers.wav"),
        metavar="WAV",
        help="write the answers to a WAV file instead of the speaker",
    )
    p.add_argument("--fast", action="store_true", help="with --input: feed the file as fast as possible")
    p.add_argument(
        "--input-device", metavar="DEV", help="microphone (index or name part; see `assistant devices`)"
    )
    p.add_argument("--output-device", metavar="DEV", help="speaker (index or name part)")

    p = command("chat", _cmd_chat, "Type to the assistant; answers are printed and spoken.")
    p.add_argument("--mute", action="store_true", help="print answers only, no speech")
    p.add_argument("--output-device", metavar="DEV", help="speaker (index or name part)")

    p = command("say", _cmd_say, "Speak TEXT with the assistant's voice.")
    p.add_argument("text", help="what to say (-: standard input, e.g. a file's text piped in)")
    p.add_argument(
        "--output",
        type=_file_of(".wav", example="said.wav"),
        metavar="WAV",
        help="write a WAV file instead of playing it",
    )
    p.add_argument("--output-device", metavar="DEV", help="speaker (index or name part)")

    p = command(
        "transcribe",
        _cmd_transcribe,
        "Transcribe audio files (WAV, FLAC, Ogg/Opus, MP3; any rate; - for stdin) with the recognizer.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument(
        "--json", action="store_true", help='one JSON object per file: {"file","text","audio_s","decode_s"}'
    )
    p.add_argument(
        "--full-context", action="store_true", help="decode the whole file at once (not streaming)"
    )

    command(
        "devices",
        _cmd_devices,
        "List audio devices (index, name, host API, channels, rate; > default input, < default output).",
    )

    p = command("latency", _cmd_latency, "Print p50/p95 per stage over the last turns of the latency log.")
    p.add_argument(
        "--last", type=_at_least_one, default=100, metavar="N", help="how many recent turns (default 100)"
    )
    p.add_argument(
        "--plot",
        type=_file_of(".png", ".svg", ".pdf", example="latency.png"),
        metavar="PNG",
        help="also draw the per-stage breakdown to this PNG (or .svg, .pdf)",
    )
    p.add_argument(
        "--llm",
        action="store_true",
        help="only the turns the LLM answered (not the clock's, the timers', sums ...: they are quicker)",
    )

    p = command(
        "memory",
        _cmd_memory,
        "Show, export or clear the conversation memory; show the lists, and what it knows of you.",
    )
    p.add_argument("action", choices=["show", "export", "clear", "lists", "about"])
    p.add_argument("--last", type=_at_least_one, default=20, metavar="N", help="show: how many recent turns")
    p.add_argument("--yes", action="store_true", help="clear: do not ask for confirmation")

    command("doctor", _cmd_doctor, "Check models, audio devices and the database; say what to fix.")
    return parser


def _file_of(*suffixes: str, example: str) -> Callable[[str], Path]:
    """An argparse type: a file to write, named with one of `suffixes`. `latency --plot` wrote a
    folder as FOLDER.png and said "wrote FOLDER"; `say --output` of a folder, of a name without a
    suffix or of a .mp3 was a TypeError or ValueError from soundfile."""

    def file(value: str) -> Path:
        path = Path(value).expanduser()
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{value} is a folder; name a file in it, e.g. {path / example}")
        if path.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(f"{value}: the name must end with {' or '.join(suffixes)}")
        return path

    return file


def _at_least_one(value: str) -> int:
    """`--last N`: 0 showed "no turns remembered" of a full memory, and the latency of every turn."""
    if not value.lstrip("-").isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value!r}")
    return int(value)


def _load(args, **overrides) -> config_mod.Config:
    sections: dict[str, dict] = {}
    for key, value in overrides.items():
        section, _, name = key.partition("__")
        sections.setdefault(section, {})[name] = _device(value)
    return config_mod.load(args.config, sections)


def _device(value):
    """Device flags given as digits are indexes."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


# --- commands ---------------------------------------------------------------------------------
def _cmd_run(args) -> int:
    cfg = _load(args, audio__input_device=args.input_device, audio__output_device=args.output_device)
    from assistant.listen import run_files, run_live

    if not args.input:
        if args.output:
            raise UserError("--output needs --input (answers to a file are for scripted runs)")
        if args.fast:  # it was ignored, and the microphone listened at its own pace
            raise UserError("--fast needs --input (a microphone is only as fast as the speaker)")
        return asyncio.run(run_live(cfg))
    return asyncio.run(run_files(cfg, Path(args.input), args.output, fast=args.fast))


def _cmd_chat(args) -> int:
    cfg = _load(args, audio__output_device=args.output_device)
    from assistant.console import chat

    return asyncio.run(chat(cfg, mute=args.mute))


def _cmd_say(args) -> int:
    cfg = _load(args, audio__output_device=args.output_device)
    from assistant.audio.devices import Player
    from assistant.audio.files import write_wav
    from assistant.tts import PiperTts, clean_text, synthesize_ahead

    given = sys.stdin.read() if args.text == "-" else args.text
    text = clean_text(given)  # read as an answer would be: no markdown, no emoji names
    if not text:
        shown = "standard input" if args.text == "-" else repr(args.text)
        raise UserError(f"nothing to say in {shown}: no words (markdown and emoji are not read aloud)")
    tts = PiperTts(cfg.tts)
    tts.build()
    import numpy as np

    if args.output:
        audio = np.concatenate(list(tts.synthesize(text)))  # float32 pieces in [-1, 1]
        write_wav(Path(args.output), audio, tts.sample_rate)
        print(f"wrote {args.output} ({len(audio) / tts.sample_rate:.2f} s)")
        return 0
    # Each sentence plays as soon as it is made, the next made meanwhile: a paragraph of 16 s was
    # heard 2.6 s after the command's start when the whole text was made first, now 1.5 s
    # (scripts/bench_say.py, README).
    pause = np.zeros(int(tts.sample_rate * cfg.tts.clause_pause_ms / 1000), np.float32)
    with Player(cfg.audio) as player:
        for sentence in synthesize_ahead(tts, text):
            player.play(np.concatenate([sentence, pause]), tts.sample_rate)
    return 0


def _cmd_transcribe(args) -> int:
    cfg = _load(args)
    from assistant.asr.recognizer import transcribe_files

    failures = 0
    for result in transcribe_files(cfg.asr, [Path(f) for f in args.files], full_context=args.full_context):
        if "error" in result:
            failures += 1
            print(f"assistant: {result['error']}", file=sys.stderr)  # read_audio's errors name the file
        elif args.json:
            print(json.dumps(result))
        else:
            print(f"{result['file']}: {result['text']}")
    return 1 if failures else 0


def _cmd_devices(args) -> int:
    from assistant.audio.devices import format_devices, list_devices

    devices = list_devices()
    if not devices:
        raise UserError(format_devices(devices))
    print(format_devices(devices))
    return 0


def _cmd_latency(args) -> int:
    from assistant import metrics

    cfg = _load(args)
    path = cfg.metrics.latency_log_path
    records, skipped = metrics.read_records(path, args.last)
    if not records:
        raise UserError(f"no turns logged yet in {path}; talk to the assistant first")
    unread = f" ({_counted(skipped, 'line')} not a turn's record, skipped)" if skipped else ""
    sources = Counter(metrics.answered_by(r) for r in records)
    others = ", ".join(f"{source} {n}" for source, n in sources.most_common() if source != "llm")
    if args.llm:
        records = [r for r in records if metrics.answered_by(r) == "llm"]
        if not records:
            raise UserError(f"none of the last {sum(sources.values())} turns in {path} was the LLM's")
        print(f"{_counted(len(records), 'turn')} answered by the LLM from {path}{unread}")
    else:
        # The answers given without the LLM are quicker: said apart, so that the table is read right.
        split = f" ({sources['llm']} answered by the LLM; without it: {others})" if others else ""
        print(f"{_counted(len(records), 'turn')} from {path}{unread}{split}")
    print(metrics.format_table(metrics.summarize(records)))
    if (out := args.plot) is not None:
        if not any("playback_start" in r.get("marks_ns", {}) for r in records):
            raise UserError(f"none of these {len(records)} turns was spoken (chat --mute?): nothing to plot")
        out.parent.mkdir(parents=True, exist_ok=True)
        metrics.plot(records, out)
        print(f"wrote {out}")
    return 0


def _cmd_memory(args) -> int:
    cfg = _load(args)
    from assistant import about_you, lists
    from assistant.memory import Memory

    memory = Memory(cfg.memory)
    memory.build()
    try:
        if args.action == "show":
            turns = memory.recent(args.last)
            if not turns:
                print(f"no turns remembered in {cfg.memory.db_path}")
            for turn in turns:
                flag = " [interrupted]" if turn.interrupted else ""
                print(f"{turn.created_at}  {turn.role:>9}: {turn.text}{flag}")
        elif args.action == "export":
            for row in memory.export():
                print(json.dumps(row, ensure_ascii=False))
        elif args.action == "lists":  # kept by voice ("add milk to my shopping list"), read here
            names = memory.list_names()
            if not names:
                print(f"no lists kept in {cfg.memory.db_path}")
            for name in names:
                items = memory.list_items(name)
                print(f"{lists.title(name)} ({lists.counted(len(items), name)}):")
                print("\n".join(f"  {item}" for item in items))
        elif args.action == "about":  # told by voice ("my name is Sam"), read here
            facts = memory.facts()
            if not facts:
                print(f"nothing kept about you in {cfg.memory.db_path}")
            for key, said in about_you.described(facts):
                print(f"{key}: {said}")
        else:
            question = f"Delete all {_counted(memory.count(), 'turn')} in {cfg.memory.db_path}?"
            if not args.yes and not _confirmed(question):
                print("nothing deleted")
                return 1
            print(f"deleted {_counted(memory.clear(), 'turn')} from {cfg.memory.db_path}")
    finally:
        memory.close()
    return 0


def _counted(n: int, noun: str) -> str:
    """ "1 turn", "3 turns" ("1 turns from ..." was printed)."""
    return f"{n} {noun}{'s' * (n != 1)}"


def _confirmed(question: str) -> bool:
    """y or yes, in any case (only "y" was); no answer at all (stdin closed: a script without
    --yes) is a no, where it was "assistant: EOFError: EOF when reading a line"."""
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        print("(no answer: --yes deletes without asking)")
        return False
    return answer.strip().lower() in ("y", "yes")


def _cmd_doctor(args) -> int:
    cfg = _load(args)
    from assistant.doctor import run_checks

    problems = 0
    for ok, what, detail in run_checks(cfg, args.config):
        problems += not ok
        print(f"{'ok ' if ok else 'FIX'}  {what}: {detail}")
    print("all good" if not problems else f"{_counted(problems, 'problem')} to fix")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
