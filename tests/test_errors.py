"""One-line errors from other libraries' exceptions."""

from __future__ import annotations

from assistant.errors import gist

TORCH_LIKE = (
    "Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` "
    "argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set "
    "to `False` will likely succeed.\nPlease file an issue with the following so that we can make ..."
)


def test_the_first_line_is_kept_as_it_is_when_short():
    assert gist(ValueError("Error opening 'a.wav': Format not recognised.\nmore")) == (
        "Error opening 'a.wav': Format not recognised."
    )


def test_a_paragraph_on_one_line_is_cut_to_its_first_sentence():
    assert gist(RuntimeError(TORCH_LIKE), limit=120) == "Weights only load failed"


def test_a_long_first_sentence_is_cut_to_the_limit():
    text = gist(OSError("x" * 300), limit=50)
    assert len(text) == 50 and text.endswith("…")


def test_no_limit_keeps_the_whole_line_and_an_empty_message_gives_the_type():
    assert gist(RuntimeError("y" * 300), limit=None) == "y" * 300
    assert gist(KeyError()) == "KeyError"
