"""The final-message ask classifier v2: speech acts rather than phrase lists.

A message is read as a person reads it: its prose (code blocks, inline code, blockquotes and
quoted questions or printed prompts set aside) split into units (sentences and list items,
surviving dotted words like "2.x?" and abbreviations), each unit labelled with the acts it
performs (config/ask_detection_v2.json):

- asking acts: a question; a request ("Tell me which...", "Reply with A or B"); a statement of
  need ("I'll need X before I can...", "Waiting on your call", "Blocked until I know...");
  a choice among options ("Two options, pick one:"); a request for a go-ahead ("Let me know
  if this plan looks good and I'll start", "OK to rename it?");
- non-asking acts, which keep a unit from counting: an optional offer ("Want me to also add
  tests?"), a self-answered or rhetorical question ("Does it affect 2.x? No, ..."), a
  comprehension check ("Does that make sense?"), a closing pleasantry.

The edit gate, reconsidered. The agent asked when it stops and needs the user's answer,
decision or go-ahead to continue the task:
- a turn that changed nothing asks when any unit asks;
- a turn that changed files asks only when it is blocked on the user: it states a need, asks
  for a go-ahead, offers a choice or requests an answer, or it asks a question while saying
  the work is unfinished ("Done so far: ..., Pending: ... Should I ...?"). A question after
  finished work (no sign the work is unfinished) is an optional one, not an ask; that the
  text had one is kept (`questions_with_edits`) so the rule stays auditable.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from capabench.swe.asks.verdict import Detection

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
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
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|viz|a\.k\.a|w\.r\.t)\.", re.I)
_DOT = "\x00"
# A sentence ends at . ! ? followed by space (so "2.x?" and "v1.2" stay whole).
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]*_]*\s+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\(?\d+[.)]|\(?[a-z][.)](?=\s))\s+", re.I)
_MARKUP = re.compile(r"[*_]{1,3}")
_POSED = re.compile(r"^(?:\*\*|__)[^*_\n]+\?(?:\*\*|__)\s*\S")
_BOLD_LINE = re.compile(r"^(?:\*\*|__)[^*_\n]+(?:\*\*|__)[:.]?$")
# A list item that poses a short question and goes on to answer it ("Blockers? Two models...").
_ITEM_POSED = re.compile(r"^[^?]{1,40}\?\s+[A-Z0-9`]")
_TRAILING = re.compile(r"[\s*_)\]\"'.!:;,-]+$")
# Questions about the code the agent then answers itself ("How can len(items) be 0? It...").
_RHETORICAL = re.compile(
    r"^(?:so |and |but )?(?:why|how come|what about|how (?:can|could|does|did|is|was|would)|what (?:causes|caused|happens|happened|went wrong|is going on|broke)|where (?:does|did) .{1,40} come from|is (?:this|that|it) (?:a bug|expected|intended))\b",
    re.I,
)


# Acts that stop the work by themselves: no offer undoes them, and after edits they ask even
# when the rest reads finished; a question, request or doubt after finished work is optional.
_FIRM = frozenset({"need", "go_ahead", "choice"})


@dataclass(frozen=True)
class Unit:
    text: str
    paragraph: int
    last: bool  # in the message's final paragraph: the turn's ending
    heading: bool
    reported: bool = False  # an item under "The reporter asks:": someone else's question
    posed: bool = False  # "**Does it affect 2.x?** No, ...": a question the line goes on to answer


def prose(message: str) -> str:
    """The message without code blocks, inline code, blockquotes, quoted questions and printed
    prompts."""
    text = _FENCE.sub("\n\n", message)
    text = _INLINE.sub("CODE", text)
    text = _QUOTED.sub("QUOTE", text)
    text = _PROMPT.sub(" PROMPT", text)
    kept, code = [], False
    for line in text.splitlines():
        # An indented code block: four spaces after a blank line (or more code), not a list.
        indented = line.startswith(("    ", "\t")) and not _BULLET.match(line)
        code = indented and (code or not kept or not kept[-1].strip())
        kept.append("" if code or line.lstrip().startswith(">") else line)
    return "\n".join(kept)


def units(message: str, reported_heading: re.Pattern | None = None) -> list[Unit]:
    """The message's prose units: sentences and list items, by paragraph; list items under a
    heading that `reported_heading` matches are marked reported."""
    paragraphs = [p for p in re.split(r"\n\s*\n", prose(message)) if p.strip()]
    found = []
    reporting = False
    for index, paragraph in enumerate(paragraphs):
        for line in paragraph.splitlines():
            line = line.strip()
            if not line or set(line) <= set("-=|*_ :"):
                continue
            item = bool(_BULLET.match(line))
            # A heading: markdown's, or a line that is all bold ("**Is it thread-safe?**").
            heading = line.startswith("#") or bool(_BOLD_LINE.match(line))
            line = _BULLET.sub("", line.lstrip("# ")).strip()
            posed = bool(_POSED.match(line)) or (
                item and bool(_ITEM_POSED.match(_MARKUP.sub("", line)))
            )
            if not item:
                plain = _MARKUP.sub("", line)
                reporting = bool(reported_heading and reported_heading.search(plain))
            line = _ABBREVIATION.sub(lambda m: m.group(0).replace(".", _DOT), line)
            for n, sentence in enumerate(_BOUNDARY.split(line)):
                sentence = _MARKUP.sub("", sentence.replace(_DOT, ".")).strip()
                if sentence:
                    last = index == len(paragraphs) - 1
                    found.append(
                        Unit(sentence, index, last, heading, item and reporting, posed and n == 0)
                    )
    return found


def _is_question(text: str) -> bool:
    return _TRAILING.sub("", text).endswith("?") or text.rstrip().endswith("?")


@dataclass(frozen=True)
class SpeechActClassifier:
    version: str
    acts: dict[str, list[re.Pattern]]
    blockers: dict[str, list[re.Pattern]]
    answer_openers: re.Pattern
    strong_answers: re.Pattern
    answer_endings: re.Pattern
    addressed: re.Pattern
    reported_heading: re.Pattern
    unfinished: list[re.Pattern]
    finished: list[re.Pattern]

    @classmethod
    def from_config(cls, data: dict) -> SpeechActClassifier:
        def compile_all(group: dict) -> dict[str, list[re.Pattern]]:
            return {k: [re.compile(p, re.I | re.M) for p in v] for k, v in group.items()}

        return cls(
            version=f"v{data['version']}",
            acts=compile_all(data["acts"]),
            blockers=compile_all(data["blockers"]),
            answer_openers=re.compile(data["answer_openers"], re.I),
            strong_answers=re.compile(data["strong_answers"], re.I),
            answer_endings=re.compile(data["answer_endings"], re.I),
            addressed=re.compile(data["addressed"], re.I),
            reported_heading=re.compile(data["reported_heading"], re.I),
            unfinished=[re.compile(p, re.I | re.M) for p in data["unfinished"]],
            finished=[re.compile(p, re.I | re.M) for p in data["finished"]],
        )

    @classmethod
    def load(cls, path: str | Path) -> SpeechActClassifier:
        return cls.from_config(json.loads(Path(path).read_text()))

    def classify(self, message: str, *, edited: bool = False) -> Detection:
        found = units(message, self.reported_heading)
        counted: list[str] = []
        categories: set[str] = set()
        blocked: dict[str, int] = {}
        for i, unit in enumerate(found):
            acts = self._acts(unit)
            if not acts:
                continue
            after = [u for u in found[i + 1 : i + 3] if u.paragraph == unit.paragraph]
            # An offer or pleasantry can't undo a need, a go-ahead or a choice in the same unit.
            blocker = None if acts & _FIRM else self._blocker(unit, after)
            if blocker:
                blocked[blocker] = blocked.get(blocker, 0) + 1
                continue
            categories |= acts
            counted.append(unit.text)
        would_ask = bool(categories)
        if not edited:
            asked = would_ask
        else:
            text = prose(message)
            unfinished = any(p.search(text) for p in self.unfinished)
            finished = any(p.search(text) for p in self.finished)
            asked = bool(categories & _FIRM) or (would_ask and (unfinished or not finished))
        return Detection(
            asked=asked,
            version=self.version,
            gate="edited" if edited else "zero_edit",
            categories=sorted(categories),
            questions=counted,
            blocked=blocked,
            questions_with_edits=would_ask and edited and not asked,
        )

    def _acts(self, unit: Unit) -> set[str]:
        acts = {
            name
            for name, patterns in self.acts.items()
            if any(p.search(unit.text) for p in patterns)
        }
        if _is_question(unit.text):
            acts.add("question")
        return acts

    def _blocker(self, unit: Unit, after: list[Unit]) -> str | None:
        """Why an asking unit doesn't count, if it doesn't; `after`: the next two units of its
        paragraph."""
        for name, patterns in self.blockers.items():
            if any(p.search(unit.text) for p in patterns):
                return name
        if not _is_question(unit.text):
            return None
        if unit.reported:
            return "reported"
        if unit.posed:
            return "self_answered"
        # Answered right after ("Does it affect 2.x? No, ..."), or a plain yes/no one unit on.
        if after and self.answer_openers.search(after[0].text.lstrip("→->–—:= ")):
            return "self_answered"
        if any(
            self.strong_answers.search(u.text) or self.answer_endings.search(u.text) for u in after
        ):
            return "self_answered"
        explained = bool(after) and not _is_question(after[0].text)
        if explained and _RHETORICAL.search(unit.text) and not self.addressed.search(unit.text):
            return "self_answered"
        if unit.heading and not self.addressed.search(unit.text):
            return "self_answered"  # a heading that poses the question the text answers
        return None
