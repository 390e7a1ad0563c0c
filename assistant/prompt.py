"""The prompt: a bounded window of remembered turns, then chat messages. Pure functions.

    history = memory.recent(cfg.window_turns)          # taken BEFORE the new user turn is stored
    remembered = window(history, cfg, llm.count_tokens)
    messages = build_messages(llm_cfg.system_prompt, remembered, user_text)

The question itself is never dropped. Where the window and the question leave the answer too little
of the context, the pipeline drops the window's oldest turns first (`AnswerStage._fit`), and a
question too long alone (a pasted page in `chat`) keeps its start and end (`fit_question`), so the
answer still has `max_answer_tokens` of room.

The window is a contiguous run of the newest turns, bounded three ways:
1. at most `window_turns` turns;
2. each text at most `max_item_chars` characters, cut at a word boundary and ended with "…";
3. the remembered texts together at most `max_tokens` tokens of the LLM's own tokenizer
   (message scaffolding such as `<|im_start|>user` is not counted), dropping the oldest first.
Older turns never reach the prompt.

Orphans: the window never starts with an assistant turn. An answer whose question has slid out
reads to a small model as something it said unprompted, and it tends to continue or repeat it;
so a leading assistant turn is dropped too. The window therefore starts with a user turn or is
empty.

Because the window is always a suffix of the history and each turn's shortened text depends only
on that turn, the rendered prompt changes from one turn to the next only by losing whole
messages at the front and gaining messages at the back. `llm.LocalLlm` relies on that to keep its
KV cache across a sliding window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from assistant.config import MemoryConfig
from assistant.memory import Turn

ELLIPSIS = "…"


def shorten(text: str, max_chars: int) -> str:
    """`text` if it fits, else its start cut at a word boundary plus "…", at most `max_chars` long."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    head = text[: max_chars - len(ELLIPSIS) + 1]  # one extra char: is the cut inside a word?
    cut = head.rfind(" ")
    if cut < max_chars // 2:  # one very long "word" (a URL): cut it rather than lose half the text
        cut = max_chars - len(ELLIPSIS)
    return head[:cut].rstrip() + ELLIPSIS


def shown_text(turn: Turn, max_chars: int) -> str:
    """The text a turn contributes to the prompt; an interrupted answer ends with "…" (it was cut)."""
    text = turn.text.strip()
    if turn.interrupted and not text.endswith(ELLIPSIS):
        text += ELLIPSIS
    return shorten(text, max_chars)


def window(turns: Sequence[Turn], cfg: MemoryConfig, count_tokens: Callable[[str], int]) -> list[Turn]:
    """The newest turns that fit all three bounds, oldest first; texts as the prompt will show them."""
    newest = list(turns)[-cfg.window_turns :]
    items = [replace(t, text=shown_text(t, cfg.max_item_chars)) for t in newest]
    costs = [count_tokens(t.text) for t in items]
    start, total = 0, sum(costs)
    while start < len(items) and total > cfg.max_tokens:  # oldest first
        total -= costs[start]
        start += 1
    while start < len(items) and items[start].role != "user":  # no orphaned answer at the front
        start += 1
    return items[start:]


def fit_question(text: str, max_tokens: int, count_tokens: Callable[[str], int]) -> str:
    """`text` if it is at most `max_tokens` tokens, else its start and its end around "…", cut at
    word boundaries, as many words as fit: a pasted text's instruction may stand at either end
    ("summarize this: ..." or "... what does it mean?")."""
    text = text.strip()
    if count_tokens(text) <= max_tokens:
        return text
    words, sep = text.split(), " "
    if len(words) < 2:  # one long "word" (a pasted blob, text without spaces): cut it by characters
        words, sep = list(text), ""

    def kept(k: int) -> str:  # the first ceil(k/2) and the last floor(k/2) words
        head, tail = sep.join(words[: k - k // 2]), sep.join(words[len(words) - k // 2 :])
        return " ".join(part for part in (head, ELLIPSIS, tail) if part)

    lo, hi = 0, len(words) - 1  # the most words that fit: kept(lo) fits (or nothing does), kept(hi + 1) not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count_tokens(kept(mid)) <= max_tokens else (lo, mid - 1)
    return kept(lo)


def build_messages(system_prompt: str, remembered: Sequence[Turn], user_text: str) -> list[dict]:
    """Chat messages: the system prompt, the remembered window, then the new user message."""
    messages = [{"role": "system", "content": system_prompt}]
    messages += [{"role": t.role, "content": t.text} for t in remembered]
    messages.append({"role": "user", "content": user_text.strip()})
    return messages
