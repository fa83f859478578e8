"""How the ask classifier v2 recognizes an answer to a question: the answer's lead-in
("→ Yes", "A: ..."), an answer that names one of the question's own alternatives ("UTC or
local time?" / "UTC: ..."), an explanation that answers a why-question, and the diagnostic or
rhetorical questions an agent asks itself."""

from __future__ import annotations

import re

# Questions about the code the agent then answers itself ("How can len(items) be 0? It...",
# "Where was the time going? 90% in ..."): diagnostic, often in the past tense.
RHETORICAL = re.compile(
    r"^(?:so |and |but )?(?:(?:where|what|which|who|when) (?:\w+ ){0,6}?(?:was|were|did|had)\b|(?:was|were|did|had) (?:it|this|that|the)\b|why|how come|what about|how (?:can|could|does|did|is|was|would)|what (?:causes|caused|happens|happened|went wrong|is going on|broke)|where (?:does|did|do) .{1,40} come from|is (?:this|that|it) (?:a bug|expected|intended)"
    # exclamations dressed as questions ("Who knew a trailing slash could break this much?")
    r"|who knew|who(?:'d| would| could)? have (?:thought|guessed|known)|who would've (?:thought|guessed)|how hard (?:can|could)|guess what|isn't it always|what could (?:possibly )?go wrong)\b",
    re.I,
)
# A question the agent anticipates for the reader and answers ("You might wonder: why not
# cache node_modules? Because ..."): the lead-in addresses the reader but asks nothing.
ANTICIPATED = re.compile(
    r"^(?:(?:you|one|someone|a reviewer) (?:might|may|could|will) (?:well )?(?:wonder|ask)|the obvious question is)\b[:,]?\s*",
    re.I,
)


def explained(question: str, reply: str) -> bool:
    """Whether `reply` opens by explaining a why-question ("Why not cache it? Because the
    runners differ ..."): an explanation answers it whatever the reasons go on to say."""
    return bool(
        re.search(r"^(?:so |and |but )?why\b|\bwhy (?:not|is|was|does|did)\b", question, re.I)
        and re.match(r"(?:because|since|it's because|that's because)\b", reply, re.I)
    )


_ANSWER_MARK = re.compile(r"^(?:[→\->–—:=\s]+|(?:a|answer)\s*:\s*)+", re.I)


def answer(text: str) -> str:
    """An answer without its lead-in ("→ Yes", "A: Yes, ...")."""
    return _ANSWER_MARK.sub("", text)


_WORD = re.compile(r"[a-z0-9][a-z0-9_+.-]*", re.I)
_LEADING = re.compile(
    r"^(?:(?:a|an|the|option|approach|choice|plan|go with|definitely|probably)\s+)+", re.I
)


def echoes(answer: str, question: str) -> bool:
    """Whether `answer` opens with one of the alternatives `question` offers ("Which default,
    UTC or local time?" / "UTC: the rest of the API ..."): a word next to its "or", then a
    break (colon, dash, comma, "since", "because") within four words."""
    words = [w.lower() for w in _WORD.findall(question)]
    near: set[str] = set()
    for i, word in enumerate(words):
        if word in ("or", "vs", "vs.", "versus"):
            near.update(words[max(0, i - 4) : i] + words[i + 1 : i + 5])
    near -= {"a", "an", "the", "it", "to", "of", "in", "on", "for", "is", "be", "we", "i", "or"}
    if not near:
        return False
    head = _LEADING.sub("", answer.strip())
    first = _WORD.match(head)
    # "Memoize or precompute? Precomputing was simpler: ...": the same word, inflected.
    word = first.group(0).lower().rstrip(".") if first else ""
    if not word or not any(word == w or (len(w) > 4 and word.startswith(w[:5])) for w in near):
        return False
    return bool(
        re.match(r"^(?:\S+\s+){0,3}?\S*?(?:[:,;—–]|\s-\s|\s(?:since|because|as)\b|\.$)", head)
    )
