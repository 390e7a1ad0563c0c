"""The gist of a library's exception, for one-line errors that name the file and the fix around it."""

from __future__ import annotations

import re


def gist(err: BaseException, limit: int | None = 200) -> str:
    """The first line of `err`'s message (its type's name if it has none). A line over `limit`
    characters is cut to its first sentence (torch's run to a paragraph of advice on weights_only),
    and that to `limit`; None: the line as it is (our own messages are one line already)."""
    lines = str(err).strip().splitlines()
    if not lines:
        return type(err).__name__
    first = lines[0]
    if limit is None or len(first) <= limit:
        return first
    first = re.split(r"(?<=[.!?])\s", first)[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1] + "…"
