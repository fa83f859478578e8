"""How an assistant message's lists read: its logical lines (list items, headings, a
question's answer written under it), and what a heading says of the items it introduces (that
they are questions, or the assistant's own steps)."""

from __future__ import annotations

import re

from capabench import messages

_ASKING_HEADER = re.compile(
    r"\b(?:question|clarif|confirm|check(?!s\W*:$|ed\b|ing (?:it |them )?(?:against|your|the|with)\b)|(?<!worth )(?<!good to )(?<!nice to )know|unclear|open point|need to (?:know|ask|check|confirm|clarify|decide|understand)|decide|ask|wonder|unsure|assum|before i)\w*",
    re.I,
)
# "To clarify the function, here are the key points:": a purpose, not a request
_CLARIFY_PURPOSE = re.compile(r"^to clarify (?:the|this|that|your|my)\b[^,:]*,\s*", re.I)
# "Here's a step-by-step approach:", "here are the key points:": what follows is the
# assistant's own plan or summary; its items ("Define a function that ...") ask only with a "?"
_OWN_STEPS = re.compile(
    r"\b(?:here(?:'s| is| are)|these|the following)\b[^:]*"
    r"\b(?:steps?|step-by-step|approach|algorithm|key points|breakdown|summary|outline)\b|\bas follows\b"
    r"|\bthe following (?:criteria|conditions|rules|requirements|properties|cases)\b",
    re.I,
)
# (... unless the heading says its items are questions)
_QUESTIONS_AHEAD = re.compile(r"\b(?:questions?|clarif\w*|unclear|confirm|decide)\b", re.I)


def heading_kind(heading: str) -> tuple[bool, bool]:
    """Whether a list's heading introduces questions ("A few things to confirm:"), and whether
    it announces the assistant's own steps or summary ("Here's a step-by-step approach:")."""
    own_steps = _OWN_STEPS.search(heading) is not None
    asks = bool(_ASKING_HEADER.search(_CLARIFY_PURPOSE.sub("", heading))) and not (
        own_steps and not _QUESTIONS_AHEAD.search(heading)
    )
    return asks, own_steps


_ANSWER_LABEL = re.compile(r"^(?:\*\*)?(?:a|answer)\s*(?:\*\*)?\s*[:.)-]", re.I)
# a sentence saying what the function does, under a question: its answer, not an option
_ANSWER = re.compile(
    r"^(?:the|it|this|they|yes|no)\b[^?]*\b(?:should|must|will|is|are|returns?|raises?)\b[^?]*\.$"
    r"|^(?:the|this) (?:function|input|output|result|code)\b[^?]*\.$",
    re.I,
)


def lines_of(paragraph: str) -> list[tuple[str, bool, bool]]:
    """The paragraph's logical lines (hard-wrapped prose joined), each with whether it is a
    list item and whether it answers the question on the line before ("1. Which order?" then
    "   - Ascending." indented under it, or "A: ascending.")."""
    out: list[tuple[str, bool, bool]] = []
    depth = 0
    for raw in paragraph.split("\n"):
        line = raw.strip()
        if not line:
            continue
        item = messages.is_list_item(line) and not line.startswith("**")
        text = messages.without_bullet(line).strip() if item else line.lstrip("#> ").strip()
        if not text:
            continue
        indent = len(raw) - len(raw.lstrip())
        answers = (
            bool(out)
            and "?" not in text
            and (
                # an answer under the question, or a second line of that answer
                ("?" in out[-1][0] and item and indent > depth and _ANSWER.match(text) is not None)
                or ("?" in out[-1][0] and _ANSWER_LABEL.match(text) is not None)
                or (out[-1][2] and item and indent >= depth)
            )
        )
        if (
            out
            and not item
            and not answers
            and text[:1].islower()
            and not out[-1][0].endswith((".", "?", "!", ":"))
        ):
            out[-1] = (out[-1][0] + " " + text, out[-1][1], out[-1][2])
        else:
            out.append((text, item, answers))
            depth = indent
    return out
