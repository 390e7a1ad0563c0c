"""The bounded window and the messages, with a word-count "tokenizer" (the real one: test_memory.py)."""

from assistant.config import MemoryConfig
from assistant.memory import Turn
from assistant.prompt import ELLIPSIS, build_messages, fit_question, shorten, shown_text, window


def words(text: str) -> int:
    return len(text.split())


def conversation(exchanges: int, words_per_turn: int = 3) -> list[Turn]:
    turns = []
    for i in range(exchanges):
        turns.append(Turn("user", " ".join([f"q{i}"] * words_per_turn), id=2 * i + 1))
        turns.append(Turn("assistant", " ".join([f"a{i}"] * words_per_turn), id=2 * i + 2))
    return turns


def test_shorten_keeps_short_text():
    assert shorten("  hello there  ", 16) == "hello there"


def test_shorten_cuts_at_a_word_boundary():
    text = "the quick brown fox jumps over the lazy dog"
    short = shorten(text, 20)
    assert short == "the quick brown fox…"
    assert len(short) <= 20


def test_shorten_cuts_one_long_word_hard():
    short = shorten("see https://example.com/a/very/long/path/indeed", 24)
    assert len(short) == 24 and short.endswith(ELLIPSIS)


def test_shorten_never_exceeds_the_limit():
    text = "ab cde fghi jk lmnop qrs tuvw xyz " * 5
    for limit in range(16, 60):
        assert len(shorten(text, limit)) <= limit


def test_interrupted_answer_is_marked_as_cut():
    assert shown_text(Turn("assistant", "Paris is the", interrupted=True), 400) == "Paris is the…"
    assert shown_text(Turn("assistant", "Paris…", interrupted=True), 400) == "Paris…"


def test_window_keeps_at_most_window_turns_newest_first_dropped_oldest():
    cfg = MemoryConfig(window_turns=4, max_tokens=10_000)
    kept = window(conversation(5), cfg, words)
    assert [t.id for t in kept] == [7, 8, 9, 10]


def test_window_respects_the_token_budget_dropping_oldest():
    cfg = MemoryConfig(window_turns=10, max_tokens=32)
    kept = window(conversation(5, words_per_turn=5), cfg, words)  # 10 turns x 5 words
    assert sum(words(t.text) for t in kept) <= 32
    assert [t.id for t in kept] == [5, 6, 7, 8, 9, 10]


def test_window_shortens_each_item():
    cfg = MemoryConfig(window_turns=4, max_tokens=10_000, max_item_chars=16)
    kept = window(conversation(2, words_per_turn=20), cfg, words)
    assert all(len(t.text) <= 16 and t.text.endswith(ELLIPSIS) for t in kept)


def test_window_never_starts_with_an_orphaned_answer():
    cfg = MemoryConfig(window_turns=3, max_tokens=10_000)
    kept = window(conversation(3), cfg, words)  # newest 3: a1, q2, a2
    assert [t.role for t in kept] == ["user", "assistant"]
    assert kept[0].id == 5


def test_window_of_an_empty_history_is_empty():
    assert window([], MemoryConfig(), words) == []


def test_window_drops_an_answer_whose_question_did_not_fit():
    cfg = MemoryConfig(window_turns=8, max_tokens=32)
    turns = [Turn("user", "long " * 40, id=1), Turn("assistant", "short answer", id=2)]
    assert window(turns, cfg, words) == []


def test_fit_question_keeps_a_question_that_fits_whole():
    assert fit_question("  what time is it  ", 4, words) == "what time is it"


def test_fit_question_keeps_the_start_and_the_end_as_many_words_as_fit():
    text = "summarize this: " + "w " * 500 + "what is it about?"
    fitted = fit_question(text, 40, words)
    assert words(fitted) == 40  # the most that fit: 39 words and the "…"
    start, end = fitted.split(f" {ELLIPSIS} ")
    assert text.startswith(start) and text.endswith(end) and end.endswith("what is it about?")
    assert start.split()[:2] == ["summarize", "this:"] and abs(words(start) - words(end)) <= 1


def test_fit_question_cuts_one_long_word_by_characters():
    blob = "x" * 100

    def chars(text: str) -> int:
        return len(text)

    fitted = fit_question(blob, 21, chars)
    assert fitted == "x" * 9 + f" {ELLIPSIS} " + "x" * 9  # 21 characters, not "…" alone


def test_fit_question_with_no_room_is_the_ellipsis():
    assert fit_question("one two three", 1, words) == ELLIPSIS


def test_build_messages_order_and_roles():
    kept = conversation(1)
    messages = build_messages("be brief", kept, " hi ")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0]["content"] == "be brief" and messages[-1]["content"] == "hi"
