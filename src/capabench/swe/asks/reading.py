"""How the ask classifier v2 reads a final message: its prose (code blocks, inline code,
blockquotes, table rows, quoted questions and printed prompts set aside) split into units,
sentences and list items, surviving dotted words like "2.x?" and abbreviations. Blocks, spans,
items and sentences are found by the shared message reader (capabench.messages)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from capabench import messages

# Quoted text that asks ("Overwrite existing release? [y/N]", an issue's question quoted):
# someone else's question, not the agent's.
# A quote opens after no letter and closes before none ("bulk archive" ... "Admin tooling"
# are two quotes, not one around the text between).
_QUOTED = re.compile(
    r"(?<!\w)\"[^\"\n]*\?[^\"\n]*\"(?!\w)|“[^”\n]*\?[^”\n]*”|‘[^’\n]*\?[^’\n]*’|(?<!\w)'[^'\n]*\?[^'\n]*'(?!\w)"
)
# A printed prompt, question and answer marker together ("Proceed (y/n)?", "Overwrite? [y/N]").
_PROMPT = re.compile(
    r"[^.!?\n:]*(?:\?\s*(?:\[(?:y/n|yes/no)\]|\((?:y/n|yes/no)\))|(?:\[(?:y/n|yes/no)\]|\((?:y/n|yes/no)\))\s*\?)",
    re.I,
)
_BARE_CONTRACTION = re.compile(
    r"\b(don|can|isn|doesn|didn|haven|hasn|aren|wasn|weren|couldn|shouldn|wouldn)t\b", re.I
)
_MARKUP = re.compile(r"[*_]{1,3}")
_POSED = re.compile(r"^(?:\*\*|__)[^*_\n]+\?(?:\*\*|__)\s*\S")
_BOLD_LINE = re.compile(r"^(?:\*\*|__)[^*_\n]+(?:\*\*|__)[:.]?$")
# A list item that poses a short question and goes on to answer it ("Blockers? Two models...").
_ITEM_POSED = re.compile(r"^[^?]{1,40}\?\s+[A-Z0-9`]")
_TRAILING = re.compile(r"[\s*_)\]\"'.!:;,-]+$")


@dataclass(frozen=True)
class Unit:
    text: str
    paragraph: int
    last: bool  # in the message's final paragraph: the turn's ending
    heading: bool
    reported: bool = False  # an item under "The reporter asks:": someone else's question
    posed: bool = False  # "**Does it affect 2.x?** No, ...": a question the line goes on to answer
    item: bool = False  # a list item


def prose(message: str) -> str:
    """The message without code blocks, inline code, blockquotes, table rows, quoted questions
    and printed prompts."""
    text = messages.without_inline_code(messages.without_fences(message), "CODE")
    text = _QUOTED.sub("QUOTE", text)
    # One apostrophe, and the common contractions small models write without one ("dont").
    text = _BARE_CONTRACTION.sub(lambda m: m.group(1) + "'t", text.replace("’", "'"))
    lowered = text.lower()
    if "y/n" in lowered or "yes/no" in lowered:  # the prompt pattern is slow; both need one
        text = _PROMPT.sub(" PROMPT", text)
    kept, code = [], False
    for line in text.splitlines():
        # An indented code block: four spaces after a blank line (or more code), not a list.
        indented = line.startswith(("    ", "\t")) and not messages.is_list_item(line)
        code = indented and (code or not kept or not kept[-1].strip())
        # A table row is data ("| empty input? | crash |"), not the agent speaking.
        kept.append(
            "" if code or messages.is_table_row(line) or messages.is_blockquote(line) else line
        )
    return "\n".join(kept)


def units(message: str, reported_heading: re.Pattern | None = None) -> list[Unit]:
    """The message's prose units: sentences and list items, by paragraph; list items under a
    heading that `reported_heading` matches are marked reported."""
    return split_units(prose(message), reported_heading)


def split_units(text: str, reported_heading: re.Pattern | None) -> list[Unit]:
    found = []
    reporting = False
    parts = messages.paragraphs(text)
    for index, paragraph in enumerate(parts):
        for line in paragraph.splitlines():
            line = line.strip()
            if not line or set(line) <= set("-=|*_ :"):
                continue
            item = messages.is_list_item(line)
            # A heading: markdown's, or a line that is all bold ("**Is it thread-safe?**").
            heading = line.startswith("#") or bool(_BOLD_LINE.match(line))
            line = messages.without_bullet(line.lstrip("# ")).strip()
            posed = bool(_POSED.match(line)) or (
                item and bool(_ITEM_POSED.match(_MARKUP.sub("", line)))
            )
            if not item:
                plain = _MARKUP.sub("", line)
                reporting = bool(reported_heading and reported_heading.search(plain))
            for n, sentence in enumerate(messages.sentences(line)):
                sentence = _MARKUP.sub("", sentence).strip()
                if sentence:
                    last = index == len(parts) - 1
                    found.append(
                        Unit(
                            sentence,
                            index,
                            last,
                            heading,
                            item and reporting,
                            posed and n == 0,
                            item,
                        )
                    )
    return found


def is_question(text: str) -> bool:
    return _TRAILING.sub("", text).endswith("?") or text.rstrip().endswith("?")
