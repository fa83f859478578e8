"""Reading a message's markdown: its fenced code blocks (info tag and body), inline code
spans, blockquote and table lines, paragraphs, list items, and sentences that keep
abbreviations, dotted words ("v1.2", "2.x?") and inline code whole.

The one reader of what a message says: the simulated user, both ask classifiers and code
extraction read through it. What each sets aside, and what stands in for it, is the caller's
choice (a parameter here); how a block, a span, an item or a sentence is found is not."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A fenced block: a run of three or more backticks or tildes, also mid-line (models open a
# block after a colon) and also on one line ("```bash ls```"), to the same run again, or to
# the end of a message that was cut off.
_FENCE = re.compile(r"(?P<fence>`{3,}|~{3,})(?P<inside>.*?)(?:(?P=fence)|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# Periods that don't end a sentence: abbreviations and initialisms ("e.g.", "i.e.", "etc."),
# titles written as titles ("Ms." but "12 ms." ends one) and "No." before a number ("No. 3",
# but "yes or no." ends one).
_ABBREVIATION = re.compile(
    r"\b(?:(?i:e\.g|i\.e|etc|vs|cf|approx|incl|esp|resp|viz|a\.k\.a|w\.r\.t|fig|eq)"
    r"|Mr|Mrs|Ms|Dr|Jr|Sr|(?i:no)(?=\.\s*\d))\."
)
_PERIOD, _QUESTION_MARK = "\x00", "\x01"  # stand in for protected ones until the split is done
# A sentence ends at . ! ? and white space, also after a closing quote, bracket or emphasis
# ("**Is it X?** No, ..." is two).
_BOUNDARY = re.compile(r"(?<=[.?!])[\"')\]*_]*\s+")
# A list item's marker: a bullet, "1." or "1)", "(a)" or "a." before a space.
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\d+[.)]|\(?[a-z][.)](?=\s))(?:\s+|$)", re.I)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Fence:
    """A fenced block: `text` as written (fences included), the info string on its opening
    line ("python", "py title=x.py"; for a one-line block, all it holds) and the lines after."""

    text: str
    info: str
    body: str
    one_line: bool

    @property
    def language(self) -> str:
        """The info string's first word, lower case ("" for none)."""
        words = self.info.split()
        return words[0].lower() if words else ""


def fences(message: str) -> list[Fence]:
    """The message's fenced blocks, in order."""
    found = []
    for match in _FENCE.finditer(message):
        info, newline, body = match["inside"].partition("\n")
        # the closing fence's indentation is not code
        found.append(Fence(match.group(0), info.strip(), body.rstrip(" \t"), not newline))
    return found


def without_fences(message: str, gap: str = "\n\n") -> str:
    """The message with each fenced block replaced by `gap` (a paragraph break: prose after a
    block is a new paragraph)."""
    return _FENCE.sub(gap, message)


def without_inline_code(text: str, stand_in: str = "") -> str:
    """The text with each inline code span replaced by `stand_in`."""
    return _INLINE_CODE.sub(stand_in, text)


def code_spans(message: str) -> list[str]:
    """The message's code as written: its fenced blocks, then the inline spans (with
    something in them) outside them."""
    blocks = [fence.text for fence in fences(message)]
    spans = _INLINE_CODE.findall(without_fences(message, " "))
    return blocks + [span for span in spans if len(span) > 2]


def _protect(text: str) -> str:
    text = _INLINE_CODE.sub(
        lambda m: m.group(0).replace(".", _PERIOD).replace("?", _QUESTION_MARK), text
    )
    return _ABBREVIATION.sub(lambda m: m.group(0).replace(".", _PERIOD), text)


def _restore(text: str) -> str:
    return text.replace(_PERIOD, ".").replace(_QUESTION_MARK, "?")


def sentences(text: str) -> list[str]:
    """The sentences of a piece of prose, abbreviations and inline code kept whole."""
    found = []
    for piece in _BOUNDARY.split(_protect(text)):
        piece = _restore(piece).strip()
        if piece:
            found.append(piece)
    return found


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs (split at blank lines), blank ones left out."""
    return [p for p in _PARAGRAPH_BREAK.split(text) if p.strip()]


def is_list_item(line: str) -> bool:
    """The line starts with a list marker."""
    return bool(_BULLET.match(line))


def without_bullet(line: str) -> str:
    """A list item's line without its marker."""
    return _BULLET.sub("", line)


def is_blockquote(line: str) -> bool:
    return line.lstrip().startswith(">")


def is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|") and line.count("|") >= 2
