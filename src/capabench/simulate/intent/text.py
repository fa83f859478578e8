"""Reading an assistant message as a person does: its prose (code blocks, unfenced code and
recorded reasoning aside), its lines and list items, split into sentences by the shared
message reader (capabench.messages), and the sentences that ask something of the user, each
with the earlier sentences it may refer back to.

What counts as asking: a question (a question mark, or an interrogative opening when the
writer drops it), a request to clarify or confirm ("let me know...", "please confirm..."),
and an assumption stated for the user to confirm or correct ("I'll assume X unless you say
otherwise", "Going with X; shout if not"). An item of a list introduced as questions
("A few things to confirm:") asks too."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from capabench import messages
from capabench.simulate.intent.lists import heading_kind, lines_of
from capabench.simulate.intent.prose import prose

_INTERROGATIVE = re.compile(
    r"^(?:so|and|also|but|or|ok(?:ay)?|then|just|quick(?:ly)?|one more thing|last thing|btw|and also)?[,:]?\s*"
    r"(?:(?:when|where)\s+(?:should|shall|do|does|did|will|would|is|are|can|could|was|were|must|'s)|"  # not "When two tie, ..."
    r"should|shall|do|does|did|what|what's|whats|which|how|where's|why|who|whom|whose|can|could|"
    r"would|will|is|isn't|are|aren't|am|was|were|(?:has|have)(?=\s+(?:you|u|we|i|they|it|there|the|this|that|these|those|your|any)\b)|any(?!\b[^?]*\b(?:raises|returns|gets|becomes|goes|works|stays)\b)|may|might|must|need|want|wanna|"
    r"u want|you want|ur|r u|is it|are we|did we|were you|do we|do i|shd|wat|wot|wut)\b",
    re.I,
)
# "otherwise" invites ("..., otherwise tell me"), but not at the end of a description
# ("True if x is even, and False otherwise.")
_OTHERWISE = r"(?<!would )(?<!will )(?<!could )(?<!might )(?<!may )otherwise(?![\s.!)`*]*$)"
_REQUEST = re.compile(
    r"\b(?:let me know|lmk|tell me|tell us|give me|send me|say so|ping me|"
    r"please,? (?!note\b|see\b|find\b|ignore\b|don't\b|do not\b|bear\b)\w+|\bpick one\b|(?<!n't )(?<!not )(?<!never )\bsay (?:where|which|what|so|the word|when)\b|"
    r"\b(?:show|give|send|paste|post|drop) me\b|\bspell (?:it |that |this )?out\b|"
    r"(?:can|could|would) you (?:confirm|clarify|specify|explain|say|share|tell|check|point|describe|remind|spell)|"
    r"remind me|(?<!to )confirm (?:that|whether|if|what|which|how|the)|(?<!to )clarify (?:what|whether|if|which|how|the)|"
    r"(?:i'd|i would|i need to|i want to|i'd like to|i wanted to|want to) (?:know|check|confirm|clarify|understand|make sure|double.check)|"
    r"wondering|(?:not (?:sure|clear)|unsure) (?:what|whether|if|which|how|about|where)|unclear (?:what|whether|if|which|how)|"
    r"(?:quick|one|a) (?:question|check|clarification)|just (?:checking|to check|to confirm|to be sure)|"
    r"need (?:a|your) (?:decision|answer|input|call)|your call on|fill me in|walk me through|"
    r"i'm guessing|i am guessing|i guess|correct me|if i'm wrong|if that's wrong|(?<=\s)if not\b|"
    r"unless (?:you|told|i hear|otherwise|that)|(?<=\s)"
    rf"{_OTHERWISE}|"
    r"shout|holler|flag (?:it|if)|speak up|push back|"
    r"if (?:you(?:'d)? (?:prefer|rather|want|need|meant|mean)|that's not|this isn't|that isn't|that doesn't|this doesn't|it should)|"
    r"(?:is|does) (?:that|this) (?:right|ok|okay|correct|work|fine|match|what)|sound (?:right|good|ok)|"
    r"^(?:describe|specify|tell|say|confirm|clarify|explain|list|share|pick|choose|decide|indicate|advise|define|spell|show|paste|name|remind|unpack|walk|give|send|provide|point|fill|post|select|write down|elaborate)\b|"
    r"(?<!n't )(?<!not )(?<!never )\bsay (?:if|whether|which|what|how)\b|\b(?:change|adjust|override|swap|switch) (?:it |this |that )?if\b|"
    r"\b(?:can't|cannot|can not|couldn't|don't|do not) (?:guess|infer|tell|know|work out|figure out|determine)\b|"
    r"\bwhat (?:isn't|is not|wasn't) (?:specified|clear|stated|given|said)|\b(?:u|ya) (?:want|need|wanna)\b|"
    r"\bkindly\b|\bi(?:'d| would) (?:be grateful|appreciate)|\bneed to know\b|\bwould you mind\b|\b(?:u|you) gonna\b|"
    r"\bconfirm (?:for me |to me |with me )?(?:that|whether|if|what|which|how|the)\b|\bfor you to (?:confirm|decide|choose|pick|clarify|say)\b|"
    r"\b(?:confirmation|clarification) (?:of|on|about)\b|\bi need (?:the|your|you to|to know|a decision|an answer)\b|"
    r"\b(?:u|ya) (?:calling|passing|using|sending|feeding|expecting|gonna)\b|\s[—–]\s[^.?!]*\bor\b[^.?!]*$|"
    r"^if\b.*\b(?:i'll|i will|i can|i'd|happy to) (?:adjust|change|switch|adapt|update|rework|redo|rename|wrap|use)\b|"
    r"\bwhichever (?:you|u) (?:prefer|want|like)\b|^quick one\b|\band i'll (?:match|adjust|adapt|change|update|switch|follow|mirror)\b|"
    r"right\?|correct\?|ok\?|okay\?)",
    re.I,
)
# An interrogative: inverted ("by clean do u mean..."), or a wh-word before an auxiliary ("where
# is that exactly"); a bare alternative ("digits or words for the number").
_AUX = r"(?:do|does|did|should|shall|can|could|would|will|is|are|was|were|must)"
_CLAUSE = r"(?:^|(?<=[,;:(+&])\s*|(?<=\s[–—-])\s*|\b(?:and|or|but|so|also|then|plus|if so|if not)\s+|\*\*)"
_INVERTED = re.compile(
    # with the user or the assistant as subject ("for f(l, t) do u call it...")
    rf"\b{_AUX}\s+(?:u|you|i|we|ur)\b"
    # right after a wh-word ("garbage what should it do"), or before an alternative ("on ur
    # side is it list, or string")
    rf"|\b(?:what|which|where|how|when|who)\s+{_AUX}\s+(?:it|they|this|that|these|those)\b"
    r"|\b(?:is|are|was|were)\s+(?:it|they|this|that)\b(?=[^.?!]*\bor\b)"
    r"|^(?:quick )?q\b|^question\b|\b(?:how|what|which|where) exactly\b",
    re.I,
)
# ... and where a clause opens ("Also, is that..."; not "we can do this", "to do that"), or a
# wh-word where a clause opens, before an auxiliary ("which way is that"; not a relative clause:
# "..., which are the largest ones", "a series where each one is the sum"); looked for only
# where an auxiliary comes before a subject at all (the clause test at every position is slow)
_AUX_SUBJECT = re.compile(
    rf"\b{_AUX}\s+(?:u|you|i|we|ur|it|they|this|that|these|those|your code|there|the)\b", re.I
)
_INVERTED_IN_CLAUSE = re.compile(
    rf"{_CLAUSE}{_AUX}\s+(?:it|they|this|that|these|those|your code|there)\b"
    rf"|{_CLAUSE}(?:(?<!, )|(?!(?:which|where|when)\s+(?:is|are)\b))\b(?:what|which|where|how|whether|when)\b"
    rf"(?:\s+[\w'-]+){{0,3}}?\s+{_AUX}\s+(?:that|this|it|they|you|u|i|we|those|these|the)\b",
    re.I,
)


def _inverted(sentence: str) -> bool:
    return _INVERTED.search(sentence) is not None or (
        _AUX_SUBJECT.search(sentence) is not None
        and _INVERTED_IN_CLAUSE.search(sentence) is not None
    )


_ALTERNATIVE = re.compile(
    r"^(?!(?:i|i'm|i've|i'll|i'd|it|it's|its|this|that|here|here's|we|we'll|the function|my|our|you|your|there|so|now|then|note|some|a|an)\b)"
    r"(?!.*\b(?:is|are|was|were|be|been|will|would|works?|fine|has|have|had|also (?:return|raise|give|work|handle|fail|get|count|go|pass|map)\w*|already|still|instead of|rather than"
    # a statement of what happens ("Zero, negative or NaN sides give `"no"`.")
    r"|returns|gives|give|raises|yields|produces|counts|goes|fails|doesn't|don't|matches|match)\b)"
    r"[\w'\"`/(),.\- ]{1,60}?\bor\b",
    re.I,
)
_ALTERNATIVE_WORDS = 14  # a bare alternative is short ("json string or python object back")
# An alternative left open at the end ("..., or something else", "sorted or not").
_OPEN_END = re.compile(
    r"\bor (?:something|anything) (?:else|different)\b|\bor (?:not|what|other|otherwise)\s*[.!]?$",
    re.I,
)
# What the assistant plans or did: asking when the message invites correction anywhere.
_PLAN = re.compile(
    r"^(?:so |ok |okay |for now,? |by default,? |currently,? |right now,? )?(?:i'll|i will|i'm going to|i am going to|going to|gonna|i've|i have|"
    r"i went with|i chose|i picked|i made|i kept|i used|i wrote|i wrapped|i set|i added|i return|as written|this version|the draft|my draft|"
    # how the draft reads the request ("I read 'tidy' as sorted") is what it does
    r"i read .{0,40} as|i'm reading|i am reading|my (?:reading|understanding|interpretation) is|"
    r"it (?:now |currently )?(?:returns|takes|writes|prints|logs|raises|expects|accepts|assumes)|the function (?:now |currently )?(?:returns|takes|writes|prints|logs|raises|expects|accepts|assumes))\b",
    re.I,
)
_INVITES = re.compile(
    rf"\b(?:correct me|if i'm wrong|if that's wrong|if not\b|unless|{_OTHERWISE}|"
    r"shout|holler|flag (?:it|if)|speak up|push back|stop me if|"
    r"let me know|lmk|tell me|say so|give me|if you(?:'d)? (?:prefer|rather|want|need|meant|mean|use|expect|call|pass|watch|look)|if that's not|if this isn't|"
    r"if (?:it|they|that) (?:should|needs|has to|isn't|is not)|happy to (?:change|switch|adjust)|(?:i can|i'll|easy to) (?:change|switch|adjust|adapt))",
    re.I,
)
_ASSUMPTION = re.compile(
    r"\b(?:(?<!be )(?<!is )(?<!are )(?<!been )(?<!it )(?<!function )(?<!code )assum(?:e|es|ed|ing|ption)|presum(?:e|ing)|i'll go with|i will go with|going with|defaulting to|"
    r"by default i'll|i'm treating|i am treating|i'll treat|i'm taking|i'll take .{0,40} to mean|"
    r"my (?:working )?(?:guess|assumption|hypothesis) is|"
    r"i take it|i gather|i understand (?:that|it)|i suppose|i'd go with|i'm inclined to|"
    r"(?:i'm|i am) planning to|my plan is|i plan to|i'll default|for now i'll)",
    re.I,
)
# "If you'd rather have X, that's a one-line change.": what the user could change, not a
# question (a request beside it still asks)
_EASY_CHANGE = re.compile(
    r"^(?:\w+(?: \w+)?:\s*)?if you(?:'d| would)? (?:rather|prefer|want|need)\b[^?]*?,\s*(?:that's|that is|it's|it is)"
    r" (?:(?:a |an )?(?:one-line|one line|single-line|single line|small|quick|easy|simple|trivial|tiny)"
    r" (?:change|tweak|edit|fix|switch|swap)|(?:easy|simple|trivial|quick) to (?:change|switch|swap|adjust|add))"
    r"\b[^?;]*?[.!)]*$",
    re.I,
)
# where a sentence joins a statement to what it asks: a semicolon or a dash
STATEMENT_BREAK = re.compile(r";\s+|\s[–—-]\s")
# "Rename it if you need something else.", "If you meant the input order, drop the `sorted`.",
# "if you want it stricter, you can add a check": an edit the user can make themselves, offered,
# not a question (one that asks for something back, "paste the call and I'll adapt it", still
# asks)
_EDIT = r"(?:rename|swap|drop|remove|replace|delete|edit|wrap|flip|comment out|uncomment|change|tweak|use|return|add|insert|set|switch|point)"
_SELF_SERVICE = re.compile(
    rf"^(?:[^?,]*,\s*(?:so |and )?)?(?:just |simply |feel free to )?{_EDIT}\b[^?]*?\bif (?:you|your|it|that|they|nothing|no)\b[^?]*$"
    # (under a label: "Choices: if you'd rather have an error, add a check at the top.")
    rf"|^(?:\w+(?: \w+){{0,3}}:\s*)?if (?:you|your)\b[^?,]*,\s*(?:just |simply )?{_EDIT}\b[^?]*$"
    # "If you wanted duplicates kept instead, it's just `[x + 1 for x in l]`."
    r"|^if (?:you|your)\b[^?,]*,\s*(?:it's|it is|that's|that is) (?:just|only|simply)\b[^?]*$"
    # "However, if you want it robust to other inputs, you can add some error handling."
    r"|^(?:(?:however|also|but|and|alternatively|additionally),?\s+)?if (?:you|your)\b[^?]*?,\s*"
    r"you (?:can|could|may|might|should|will need to|would need to|need to)\b[^?]*$"
    # "adjust the logger name or level as needed"
    rf"|^(?:[^?,]*,\s*(?:so |and )?)?(?:just |simply |feel free to )?(?:{_EDIT}|adjust|adapt|tune)\b[^?]*"
    r"\bas (?:needed|necessary|required|you (?:like|see fit|need|prefer))\b[^?]*$",
    re.I,
)
_ASKS_BACK = re.compile(
    r"\b(?:tell|let me know|lmk|say so|ping|ask|shout|send|paste|show|share|give me|i'll|i will|i can)\b",
    re.I,
)
# "If you meant unusual inputs, those are covered too.": what the draft already does
_ALREADY = re.compile(
    r"^if you(?:'d)? (?:meant|mean|want|need|prefer)\b[^?]*?,\s*(?:those|that|this|it|they|these)"
    r"(?:'s|'re| is| are| will be)? (?:already |also )?(?:covered|handled|included|supported|fine|taken care of)\b[^?]*$",
    re.I,
)
# A question quoted in a statement ("the question is really "is it a rotation?"") asks nothing.
_QUOTED = re.compile(r"\"[^\"\n]{1,160}\?[^\"\n]{0,3}\"|“[^”\n]{1,160}\?[^”\n]{0,3}”")
# "Why it's written this way:", "How it works:": a heading that explains what follows
_EXPLAINING = re.compile(r"^(?:why|how)\b[^?]*:$", re.I)
# ... and such a label opening a statement ("How it works: for each group it keeps ...")
_EXPLAINING_LABEL = re.compile(
    r"^(?:how (?:it|this|that) works|why\b[^?:]{0,60}|notes?|choices"
    r"|what\b[^?:]{0,40}\b(?:covers?|means?|does|handles?|checks?) here"
    r"|what (?:i|it) (?:did|does|changed|added|handles?|covers?)\b[^?:]{0,40})\s*:\s+(?=\S)",
    re.I,
)
# "Two or more breaks...": a count, not an alternative offered.
_NOT_ALTERNATIVE = re.compile(
    r"\b(?:\d+|one|two|three|four|five|ten) or (?:more|fewer|less|so)\b|\bor (?:more|fewer|less|so|later|earlier|above|below|higher|lower)\b",
    re.I,
)
# A sentence that leans on an earlier one for what it asks about.
_REFERS_BACK = re.compile(
    r"\b(?:that|this|those|these|it|them|which one|what you (?:said|meant|mentioned|wrote)|you said|you mentioned|"
    r"earlier|above|before|last time|as usual|the usual|same as|like we|we agreed|we said|we settled|mean by|meant by|there|so|"
    r"your way|you mean|you meant|which\s*[.?!]?$)\b",
    re.I,
)


# A sentence that leads into what follows, or offers to go on: it refers forward, not back
_LEADS_ON = re.compile(
    r":\s*$|\b(?:questions?|things?|points?|details?|clarifications?) (?:first|before)\b"
    # "Two assumptions, since I can't infer them.": a count of what follows
    r"|^(?:\w+,? ){0,3}?(?:two|three|four|a few|a couple(?: of)?|several|some) (?:quick |small |more )?"
    r"(?:questions?|things?|assumptions?|points?|details?|clarifications?|caveats?)\b(?![^.?!]*:\s*\S)"
    r"|\bneed to (?:check|ask|confirm|know) (?:something|a few|two|one|some)\b"
    r"|\bwould you like me to\b|\bproceed\b",
    re.I,
)


# "Once you confirm the two points above, I'll send it.": what was asked already, each read
# where it was asked; the recap itself asks nothing new
_RECAP = re.compile(
    r"\b(?:the|these|those|both|all|my|each of (?:the|these|those|my)) (?:\w+ ){0,2}?"
    r"(?:points?|questions?|things?|items?|assumptions?|details?|answers?|choices?|options?)"
    r" (?:above|i (?:listed|asked|raised|mentioned|flagged)|listed)\b|\bthe above\b",
    re.I,
)
_INVITE_WORDS = 10  # an invitation longer than this says what it asks


@dataclass(frozen=True)
class Question:
    """A sentence that asks the user something, with what it may refer back to: the two
    sentences before it or, for a list item, the list's heading."""

    text: str
    context: str = ""
    # a list item's heading, which opens `text` ("Two things to check: Is that right?")
    heading: str = ""
    # what the draft does, asked only because the message invites correction somewhere
    put_up: bool = False

    @property
    def own(self) -> str:
        """The sentence in its own words (a list item without its heading)."""
        return self.text[len(self.heading) :].strip() if self.heading else self.text

    @cached_property
    def refers_back(self) -> bool:
        """It points at something said before, or is too short to say anything itself
        ("lmk", "Thoughts?", "Correct me if not.")."""
        words = len(self.text.split())
        # "tell me and I'll add it" leans on what came before; "tell me how the last digit
        # of a float is defined" says what it asks
        invites = _INVITES.search(self.text) is not None and words <= _INVITE_WORDS
        return bool(_REFERS_BACK.search(self.text)) or invites or words <= 5

    @cached_property
    def elliptical(self) -> bool:
        """It is read with what came before: it refers back (a sentence of five words or
        fewer does), and neither leads into what follows ("Two questions first:") nor
        states what the draft does ("It returns a plain `int`.")."""
        return self.refers_back and not (
            _LEADS_ON.search(self.text)
            or _PLAN.match(self.text.strip())
            or _RECAP.search(self.text)
        )

    @property
    def as_read(self) -> str:
        """The sentence as the matchers read it: with what it refers back to, if it does."""
        return f"{self.context} {self.text}".strip() if self.elliptical else self.text


@lru_cache(maxsize=4096)  # read once for the invitation, once for the question
def _said_to_answer(sentence: str) -> str:
    """The sentence without what only offers the user a change of their own ("If you'd
    rather X, that's a one-line change", "rename it if you need something else")."""
    stripped = _ALREADY.sub("", _EASY_CHANGE.sub("", sentence.strip())).strip()
    # ... and such an offer in parentheses ("I named it `f` (rename it if you need another).")
    stripped = _PARENTHESIS.sub(
        lambda m: "" if _self_service(m.group(1)) else m.group(0), stripped
    ).strip()
    clauses = [c for c in STATEMENT_BREAK.split(stripped) if not _self_service(c)]
    return "; ".join(clauses).strip()


_PARENTHESIS = re.compile(r"\s*\(([^()]{1,120})\)")


def _self_service(clause: str) -> bool:
    """An edit the user can make themselves, offered, asking nothing back."""
    # (the code it offers may hold commas of its own: "use `[x for x in l if x > 0]`")
    return bool(
        _SELF_SERVICE.match(messages.without_inline_code(clause.strip(), "CODE"))
        and not _ASKS_BACK.search(clause)
    )


def invites(sentence: str) -> bool:
    """Does the sentence invite correction ("let me know if ...", "correct me")?"""
    return _INVITES.search(_said_to_answer(sentence)) is not None


@lru_cache(maxsize=4096)
def _asking(sentence: str) -> tuple[bool, bool]:
    """Whether the sentence asks something of the user in its own words, and whether it
    states what the draft does (which asks only where the message invites correction)."""
    stripped = _said_to_answer(sentence)
    if not stripped:
        return False, False
    heading = _EXPLAINING.match(stripped) is not None
    stripped = _EXPLAINING_LABEL.sub("", stripped)
    s = _QUOTED.sub(" ", stripped).strip() or stripped
    own = bool(
        "?" in messages.without_inline_code(s)
        or (_INTERROGATIVE.match(s) and not heading)
        or _inverted(s)
        or _REQUEST.search(s)
        or _ASSUMPTION.search(s)
        or (
            _ALTERNATIVE.match(s)
            and len(s.split()) <= _ALTERNATIVE_WORDS
            and not _NOT_ALTERNATIVE.search(s)
        )
        or _OPEN_END.search(s)
    )
    return own, _PLAN.match(s) is not None


# "The docstring says `2`.", "`[3, 1, 2]` sorted is `[1, 2, 3]`": a finite verb of being or
# saying, in an item that neither opens as a question nor with a label ("Negatives: the
# spec is silent." points at an open question)
_DECLARES = re.compile(
    r"^(?!(?:whether|if|how|what|which|who|where|when|why)\b)(?![^:]{1,60}:\s).*\b(?:is|are|was|were|says|said|"
    r"gives|shows|matches|means|yields|equals|comes out|works out)\b",
    re.I,
)


def _evidence_item(line: str, heading: str) -> bool:
    """An item that states what was found (the evidence behind the heading's question), not
    an assumption put up for correction: under a list of questions it asks nothing itself."""
    return bool(_DECLARES.search(line)) and not _ASSUMPTION.search(heading)


def questions_of(message: str) -> list[Question]:
    """The sentences of a message that ask the user something, code blocks left out."""
    found: list[Question] = []
    earlier: list[str] = []
    # each paragraph's lines, each line with whether it is a list item, whether it answers the
    # question above it, and its sentences
    paragraphs = [
        [
            (line, item, answers, messages.sentences(line))
            for line, item, answers in lines_of(paragraph)
        ]
        for paragraph in messages.paragraphs(prose(message))
    ]
    # (an edit offered to the user, "rename it if you want", invites no answer)
    invited = any(
        invites(sentence) for lines in paragraphs for _, _, _, said in lines for sentence in said
    )
    heading = ""
    for lines in paragraphs:
        if lines and not lines[0][1]:
            heading = ""  # a heading carries over a blank line only to the list it introduces
        line_start = len(found)
        for line, item, answers, said in lines:
            if answers:  # the assistant answers its own question: neither line asks
                del found[line_start:]
                earlier.extend(said)
                continue
            line_start = len(found)
            if not item:  # what introduces a list: the line's last sentence, not its prose
                heading = said[-1] if said and line.endswith(":") else ""
            asks_heading, own_steps = heading_kind(heading) if item and heading else (False, False)
            listed = item and asks_heading
            if item and own_steps and not asks_heading:
                readings = [("?" in messages.without_inline_code(s), False) for s in said]
            else:
                readings = [_asking(sentence) for sentence in said]
            put_up = [invited and not own and plan for own, plan in readings]
            asking = [own or up for (own, _), up in zip(readings, put_up, strict=True)]
            if listed and not any(asking) and not _evidence_item(line, heading):
                # an item of a list of questions that asks nothing in its own words ("The
                # output format.") asks as a whole; one that does asks there, and its other
                # sentences are what it refers back to
                asking = [True] * len(said)
            for i, (sentence, asked) in enumerate(zip(said, asking, strict=True)):
                if asked:
                    if item and heading:  # a list's heading names what its items ask about
                        context = " ".join(said[:i][-2:])
                        found.append(Question(f"{heading} {sentence}", context, heading, put_up[i]))
                    else:
                        found.append(Question(sentence, " ".join(earlier[-2:]), put_up=put_up[i]))
                earlier.append(sentence)
    return found


def questions(message: str) -> list[str]:
    """The question-like sentences of a message (their text), code blocks left out."""
    return [q.text for q in questions_of(message)]
