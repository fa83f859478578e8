"""Which families' cues (the user's own words for a convention, `Family.cues`) an asking
sentence quotes. Assistants rarely repeat a cue whole: they quote its telling part
("**"Where I always look"**: a log or a file?"). A question about the user's own words asks
what those words stand for, so the family is asked about.

A quoted span (in quotes, or bold) counts when it is two words or more, runs inside a cue and
holds a word of the cue's own beyond the common ones ("where I always look", "clean text");
unquoted, only the whole cue. Single quoted words ("clean") and unquoted pieces were tried
and cost more false reveals on held-out parts than they found (docs/measurements.md)."""

from __future__ import annotations

import re
from functools import cache

from capabench.conventions import REGISTRY

_WORD = re.compile(r"[a-z]+(?:['/][a-z]+)*")
_QUOTED = re.compile(
    r"\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|\*\*([^*\n]{1,80})\*\*|(?<![a-z])'([^'\n]{2,80})'(?![a-z])",
    re.I,
)
# Words that say nothing of a cue's own (many requests and questions hold them).
_COMMON_WORDS = """a all also and answer back be call can come could do for format from give has have how i
    i'll i'm in input is it it's its just keep like list make me my need number numbers on only
    or our out output over result run see send should so string sure text that the these this
    to up us value want way we what when where which with work you your"""
_COMMON = frozenset(_COMMON_WORDS.split())


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


@cache
def _cues() -> tuple[tuple[str, str], ...]:
    """(family, the cue's words joined by single spaces, padded with one space each side)."""
    return tuple(
        (f, f" {' '.join(_words(c))} ") for f in sorted(REGISTRY) for c in REGISTRY[f].cues if c
    )


def quoted_cues(sentence: str) -> tuple[str, ...]:
    """The families whose cue `sentence` quotes, sorted."""
    words = _words(sentence)
    if not words:
        return ()
    found = set()
    for match in _QUOTED.finditer(sentence):
        span = _words(next(g for g in match.groups() if g))
        if len(span) >= 2 and any(w not in _COMMON for w in span):
            run = f" {' '.join(span)} "
            found |= {f for f, cue in _cues() if run in cue}
    text = f" {' '.join(words)} "
    found |= {f for f, cue in _cues() if cue in text}
    return tuple(sorted(found))
