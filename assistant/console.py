"""The terminal: state line, partial and final transcripts, streamed answers, each turn's latency.

Also the typed `assistant chat` loop, which drives the same pipeline as the microphone does.
"""

from __future__ import annotations

import asyncio
import sys

from assistant import pipeline as pipeline_mod
from assistant.config import Config
from assistant.frames import Turn


class Console:
    """Prints what happens; one line per event so logs stay readable when piped."""

    def __init__(self, stream=None, show_latency: bool = True, typed: bool = False) -> None:
        self.out = stream or sys.stdout
        self.show_latency = show_latency
        self.typed = typed  # `chat`: between turns the "> " prompt waits, not a microphone
        self._mid_answer = False  # an answer's line is open
        self._answer_cut = False  # a warning closed that line; the answer goes on below it
        self._partial_shown = False
        self._prompt_gone = False  # `chat`: an announcement (a due timer) wrote over the "> " prompt

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def state(self, name: str) -> None:
        if self.out.isatty() and not self._mid_answer:
            # In `chat` nothing listens between turns: "[listening]> " stood before each typed line.
            # A turn nobody typed (a timer that went off) leaves input() waiting with no prompt shown.
            if self.typed and name == "listening":
                self._write("\r\033[K> " if self._prompt_gone else "\r\033[K")
                self._prompt_gone = False
            else:
                self._write(f"\r\033[K[{name}]")

    def partial(self, text: str) -> None:
        if self.out.isatty():
            self._write(f"\r\033[K… {text}")
            self._partial_shown = True

    def final(self, text: str) -> None:
        prefix = "\r\033[K" if self._partial_shown else ""
        self._partial_shown = False
        self._write(f"{prefix}you: {text}\n")

    def not_addressed(self, text: str, asleep: bool = False) -> None:
        """An utterance let go: it did not begin with a wake phrase, or the assistant was asked to
        stop listening (`wake.py`)."""
        prefix = "\r\033[K" if self._partial_shown else ""
        self._partial_shown = False
        self._write(f"{prefix}({'asleep' if asleep else 'not to me'}: {text})\n")

    def answer_piece(self, turn: Turn, text: str) -> None:
        if not self._mid_answer:
            # after a warning: "…" then the rest, with one space where the cut fell between words
            cut = ("… " if text[:1].isspace() else "…") if self._answer_cut else ""
            self._write(f"{self._clear()}assistant: {cut}")
            self._mid_answer = True
            text = text.lstrip() if self._answer_cut else text
        self._write(text)

    def turn_done(self, turn: Turn, record: dict) -> None:
        self._prompt_gone = self.typed and not turn.user_text
        if self._mid_answer:
            self._write(" [interrupted]\n" if turn.interrupted else "\n")
        self._mid_answer = self._answer_cut = False
        if self.show_latency:
            d = record["durations_ms"]
            parts = [
                f"{k}={d[k]:.0f}ms"
                for k in ("voice_to_voice", "text_to_voice", "llm_ttft", "turn_total")
                if k in d
            ]
            shown = " ".join(parts)
            if record["tokens_per_s"]:  # none for a turn that failed before the LLM wrote ("0 tok/s")
                shown += f", {record['tokens_per_s']:.0f} tok/s"
            if shown:
                self._write(f"  ({shown})\n")

    def error(self, message: str) -> None:
        """The turn failed: it ends here, so the next answer opens a line of its own again."""
        opened = "\n" if self._mid_answer else self._clear()
        self._mid_answer = self._answer_cut = False
        self._write(f"{opened}assistant: error: {message} (the conversation goes on)\n")

    def warning(self, message: str) -> None:
        """A problem the turn survives (a speaker that failed), on a line of its own: written into
        the answer being printed it split it mid-word. The rest of the answer follows it, after "…"."""
        if self._mid_answer:
            self._write("\n")
            self._mid_answer, self._answer_cut = False, True
        self._write(f"{self._clear()}assistant: warning: {message}\n")

    def _clear(self) -> str:
        return "\r\033[K" if self.out.isatty() else ""


async def chat(cfg: Config, mute: bool = False) -> int:
    """Typed conversation: each line is a turn; EOF or Ctrl-C ends it, completed turns are kept."""
    console = Console(typed=True)
    if hasattr(sys.stdin, "reconfigure"):  # before the first read, which fixes the stream's settings
        # A byte that is not UTF-8 (a Latin-1 "é" piped in) became a surrogate that failed the turn
        # as it was stored; as "�" the turn goes on.
        sys.stdin.reconfigure(errors="replace")
    pipe = pipeline_mod.create(cfg, speak=not mute, observer=console)
    await pipe.open()
    try:
        while True:
            line = await asyncio.to_thread(_read_line)
            if line is None:
                break
            if line.strip():
                await pipe.ask(line.strip())
    except (KeyboardInterrupt, asyncio.CancelledError):
        await pipe.interrupt()
    finally:
        await pipe.stop()
    return 0


def _read_line() -> str | None:
    try:
        return input("> " if sys.stdin.isatty() else "")
    except EOFError:
        return None
