"""The final-message ask classifier v2: speech acts rather than phrase lists.

A message is read as a person reads it (reading.py): its prose (code blocks, inline code, blockquotes and
quoted questions or printed prompts set aside) split into units (sentences and list items,
surviving dotted words like "2.x?" and abbreviations), each unit labelled with the acts it
performs (config/ask_detection_v2.json); its layout (lists, sections, labelled options) is read
by layout.py, and whether the work reads finished by gate.py:

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
  finished work (no sign the work is unfinished) is an optional one, not an ask; so is one
  the agent goes on to settle, reporting its own change after it ("Should it be a flag or an
  env var? I made it both."). That the text had one is kept (`questions_with_edits`) so the
  rule stays auditable.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from pathlib import Path

from capabench.swe.asks.answers import ANTICIPATED, RHETORICAL, answer, echoes, explained
from capabench.swe.asks.gate import Gate
from capabench.swe.asks.layout import labelled, lettered_lines, list_after, list_intro, section
from capabench.swe.asks.reading import Unit, is_question, prose, split_units
from capabench.swe.asks.verdict import Detection

# Acts that stop the work by themselves: no offer undoes them, and after edits they ask even
# when the rest reads finished; a question, request or doubt after finished work is optional.
_FIRM = frozenset({"need", "go_ahead", "choice", "held_open"})
# Acts a one-clause report of the agent's own work can't perform ("Updated the FAQ entry to say
# yes", "I changed the test to pick a free port"); a need it states still counts.
_REPORTED_AWAY = frozenset({"request", "go_ahead", "choice"})
_BUILT = frozenset({"version", "acts", "blockers", "any_act"})  # fields not read by key
_CHAINED = re.compile(r"(?:and|or) [^?]{1,30}\?$")  # lower case: it goes on from the last mark
_CLAUSE = re.compile(r"[;:—–]|\s-\s")
# A report that goes on to a doubt ("I've implemented per file, but if it's per request ...")
# leaves the question before it open.
_CONTRAST = re.compile(r"\b(?:but|however|though|although|except|unless)\b", re.I)


@dataclass(frozen=True)
class SpeechActClassifier:
    """Each config list is compiled into one alternation (a pattern per act, per blocker, per
    gate signal), one search per unit instead of one per phrase."""

    version: str
    acts: dict[str, re.Pattern]
    blockers: dict[str, re.Pattern]
    answer_openers: re.Pattern
    strong_answers: re.Pattern
    answer_endings: re.Pattern
    addressed: re.Pattern
    reported_heading: re.Pattern
    unfinished: re.Pattern
    finished: re.Pattern
    unfinished_strong: re.Pattern
    no_change: re.Pattern
    offer_questions: re.Pattern
    deferring_alternative: re.Pattern
    open: re.Pattern
    decided: re.Pattern
    option_intro: re.Pattern
    option_taken: re.Pattern
    held_open: re.Pattern
    requirement_questions: re.Pattern
    more_work: re.Pattern
    acted: re.Pattern
    reported_work: re.Pattern  # a unit reporting the agent's own change ("I changed ...")
    changed_state: re.Pattern  # what the change made so ("the server now reloads ...")
    continues: re.Pattern  # a request's purpose: the agent goes on ("so I can ...", "and I'll")
    bare_request: re.Pattern  # a closing request that names nothing ("Just say the word!")
    optional_marker: re.Pattern  # what marks offers optional ("if you're interested")
    follow_up_heading: re.Pattern  # "Next steps" over a list: follow-ups once the work is done
    decision_label: re.Pattern  # a heading naming the section's decision ("Decision: ...")
    no_need: re.Pattern  # a need denied ("Nothing else is needed from me.")
    # questions only a yes/no or a decision answers: "It should be X, right?", "Thoughts on X?"
    strict_questions: re.Pattern
    any_act: re.Pattern  # every act's phrases: a unit that matches none performs no act

    @classmethod
    def from_config(cls, data: dict) -> SpeechActClassifier:
        def one(patterns: list[str] | str) -> re.Pattern:
            if isinstance(patterns, str):
                patterns = [patterns]
            # ASCII classes (\b, \w) and case folding: the phrases are English words, and
            # the search runs about twice as fast.
            return re.compile("|".join(f"(?:{p})" for p in patterns), re.I | re.M | re.A)

        acts = data["acts"]
        return cls(
            version=f"v{data['version']}",
            acts={k: one(v) for k, v in acts.items()},
            blockers={k: one(v) for k, v in data["blockers"].items()},
            # every other field is one config key of that name, compiled
            **{f.name: one(data[f.name]) for f in fields(cls) if f.name not in _BUILT},
            any_act=one([p for v in acts.values() for p in v]),
        )

    @classmethod
    def load(cls, path: str | Path) -> SpeechActClassifier:
        return cls.from_config(json.loads(Path(path).read_text()))

    def classify(self, message: str, *, edited: bool = False) -> Detection:
        text = prose(message)
        found = split_units(text, self.reported_heading)
        gate = Gate(self, text)
        counted: list[str] = []
        categories: set[str] = set()
        blocked: dict[str, int] = {}
        last_counted = -1
        for i, unit in enumerate(found):
            acts = self._acts(unit)
            if not acts:
                continue
            after = [u for u in found[i + 1 : i + 4] if u.paragraph == unit.paragraph]
            if after and is_question(after[0].text) and _CHAINED.match(after[0].text):
                after = after[1:]  # "Works on 1.x? and 2.x? Both, ...": one question, two marks
            after = after[:2]
            if not after and i + 1 < len(found) and is_question(unit.text):
                # A question that ends its paragraph may be answered by the next one
                # ("Does this change the API?" / "No: only the private codec changed.").
                after = [found[i + 1]]
            before = found[i - 1] if i and found[i - 1].paragraph == unit.paragraph else None
            if "need" not in acts and self._offer(unit) and gate.done(edited):
                blocker = "offer"
            elif (
                acts == {"request"}
                and self.bare_request.search(unit.text)
                and any(self.optional_marker.search(u.text) for u in found[max(0, i - 4) : i])
            ):
                blocker = "offer"  # "Things I could do next, if useful: ... Just say the word!"
            elif unit.heading and self.decision_label.search(unit.text):
                # "## Decision: where to validate" over a section that reports it taken
                taken = [self.acted, self.decided]
                decided = any(p.search(u.text) for u in section(found, i) for p in taken)
                blocker = "decided" if decided else None
            elif (
                unit.item and is_question(unit.text) and self._optional_list(found, i, gate, edited)
            ):
                blocker = "offer"  # "## Next steps (optional)" over "- Drop the old alias?"
            elif is_question(unit.text) and after and self._blocks(after[0], "offer"):
                # "Should the exit code change too? Happy to do that separately.": the offer
                # after it makes the question optional.
                blocker = "offer"
            elif acts & {"need", "go_ahead"}:
                # An offer or pleasantry can't undo a need or a go-ahead in the same unit; but
                # a question answered at once is no ask, need or not ("Need a migration? Yes,
                # added ..."), and after edits neither is a go-ahead question the agent
                # answered and acted on ("Is it safe to drop the index? I checked: zero scans.
                # Dropped it.").
                answered = is_question(unit.text) and (
                    # "- **Is it safe to upgrade?** Yes, no breaking changes": posed and answered
                    unit.posed
                    or bool(after and self.strong_answers.search(answer(after[0].text)))
                    or (
                        edited
                        and "need" not in acts
                        and not gate.stuck()
                        and self._decided(unit, after, before, strict=True)
                    )
                )
                blocker = "self_answered" if answered else None
            elif "choice" in acts and not is_question(unit.text):
                # "Two ways: A, or B. Which is better? A, since ...": the question's answer
                # decides the choice too.
                rest = [u for u in found[i + 1 : i + 4] if u.paragraph == unit.paragraph]
                items, later = list_after(found, i)
                if rest and is_question(rest[0].text):
                    decided = self._decided(rest[0], rest[1:], unit)
                elif len(items) >= 2:  # "Two approaches were possible:" over a list
                    decided = self._taken(items, later, edited)
                else:  # after edits, also by the agent's report of it ("I deleted it, ...")
                    reported = edited and self._settled(after)
                    decided = reported or self._decided(unit, after, before)
                blocker = "decided" if decided else None
            else:
                blocker = self._blocker(unit, after, before, offers=not gate.stuck())
            if blocker:
                blocked[blocker] = blocked.get(blocker, 0) + 1
                continue
            if is_question(unit.text) and any(self.held_open.search(u.text) for u in after):
                acts = acts | {"held_open"}  # "... or per request? If it's per request, ..."
            if edited and self._requirement(unit, after):
                acts = acts | {"requirement"}
            categories |= acts
            counted.append(unit.text)
            last_counted = i
        options = self._option_list(found, edited) or self._lettered(text, edited)
        if options:
            categories.add("choice")
            counted.append(options)
        would_ask = bool(categories)
        if not edited or not would_ask:
            asked = would_ask
        else:
            # Finished: the text says so, or the agent reports its own change after its last
            # question ("Should it be a flag or an env var? I made it both.", "... The server
            # now reloads them."): a question it went on to settle itself, not one it stopped
            # for.
            asked = (
                bool(categories & (_FIRM | {"requirement"}))
                or gate.unfinished()
                or not (gate.finished() or self._settled(found[last_counted + 1 :]))
            )
        return Detection(
            asked=asked,
            version=self.version,
            gate="edited" if edited else "zero_edit",
            categories=sorted(categories),
            questions=counted,
            blocked=blocked,
            questions_with_edits=would_ask and edited and not asked,
        )

    def _settled(self, rest: list[Unit]) -> bool:
        """Whether the units after an edited turn's last asking unit report the agent's own
        change, without turning to a doubt ("I made it both", "The server now reloads them")."""
        return any(
            (self.reported_work.search(u.text) or self.changed_state.search(u.text))
            and not _CONTRAST.search(u.text)
            for u in rest
        )

    def _requirement(self, unit: Unit, after: list[Unit]) -> bool:
        """A question about what the task itself should do ("Should archived projects still
        count toward the limit?", "keep a redirect, or return 410?"), not about more work
        ("... too?", "in a separate PR?", "Either is fine by me")."""
        if not is_question(unit.text) or not self.requirement_questions.search(unit.text):
            return False
        if any(self.more_work.search(u.text) for u in [unit, *after]):
            return False
        # The turn ends on it, or what follows says the answer matters: a question followed
        # by more prose may be one the agent goes on to settle.
        if any(self.held_open.search(u.text) for u in after):
            return True
        return unit.last and not any(u.paragraph == unit.paragraph for u in after)

    def _blocks(self, unit: Unit, name: str) -> bool:
        pattern = self.blockers.get(name)
        return bool(pattern and pattern.search(unit.text))

    def _offer(self, unit: Unit) -> bool:
        """A yes/no offer of one more thing ("Shall I open a PR?", "Do you want me to also
        ...?"), not a choice between two ("Should I update it, or revert?")."""
        text = unit.text
        if not is_question(text) or not self.offer_questions.search(text):
            return False
        head = self.deferring_alternative.split(text, maxsplit=1)[0]
        return not re.search(r",? or\b", head)

    def _option_list(self, found: list[Unit], edited: bool) -> str:
        """Options offered and none taken: an intro line ("Options for the duplicate-email
        case:") over two or more list items, or lines labelled "A:", "B:"; none of them taken
        and none taken after. The intro or first option, or ""."""
        for i, unit in enumerate(found):
            options, rest = labelled(found, i)
            if len(options) < 2:
                if unit.item or not self.option_intro.search(unit.text):
                    continue
                options, rest = list_after(found, i)
            if len(options) >= 2 and not self._taken(options, rest, edited):
                return unit.text
        return ""

    def _optional_list(self, found: list[Unit], i: int, gate: Gate, edited: bool) -> bool:
        if not (intro := list_intro(found, i)):
            return False
        # a yes/no follow-up ("- backport to 1.4?"), not a wh-question ("Which do you prefer?")
        yes_no = not re.match(r"(?:which|what|how|where|who|when)\b", found[i].text, re.I)
        follow_up = yes_no and self.follow_up_heading.search(intro.text) and gate.done(edited)
        return bool(follow_up or self.optional_marker.search(intro.text))

    def _taken(self, options: list[Unit], rest: list[Unit], edited: bool) -> bool:
        """Whether an option is taken: in its own words ("I went with", "I did 2") or, after
        edits, by a report of the agent's change after the list ("I capped it at 30 s")."""
        if any(self.option_taken.search(u.text) for u in options + rest):
            return True
        return edited and any(self.reported_work.search(u.text) for u in rest)

    def _lettered(self, text: str, edited: bool) -> str:
        first, rest = lettered_lines(text)
        if not first or self.option_taken.search(rest):
            return ""
        return "" if edited and self.reported_work.search(rest) else first

    def _decided(
        self, unit: Unit, after: list[Unit], before: Unit | None, strict: bool = False
    ) -> bool:
        """Whether the units after a question or a choice answer it: an answer that isn't held
        open ("If it is, ...", "depends on"), the agent's decision ("I went with a warning"),
        or one of the question's own alternatives ("Lock or a queue? A queue: ...")."""
        if not after:
            return False
        first = after[0].text
        # An answer that opens with one of the question's alternatives ("Only in the
        # formatter — ...") settles it whatever the reasons after it say.
        question = unit.text + " " + (before.text if before else "")
        if not self.open.search(first) and echoes(first, question):
            return True
        if any(self.acted.search(u.text) for u in after):
            return True  # "I'd go with B, and that's what I did."
        if any(self.open.search(u.text) for u in after):
            return False
        if any(self.decided.search(u.text) for u in after):
            return True
        if strict:  # a go-ahead the agent acted on: its decision, not an opener like "It's"
            return False
        if self.answer_openers.search(answer(first)):
            return True
        return bool(
            re.match(r"how (?:many|much|long|often)\b", unit.text, re.I)
            and re.match(
                r"(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|none|a few|several)\b",
                first,
                re.I,
            )
        )

    def _acts(self, unit: Unit) -> set[str]:
        acts = (
            {name for name, pattern in self.acts.items() if pattern.search(unit.text)}
            if self.any_act.search(unit.text)
            else set()
        )
        if (
            "request" in acts
            and self.continues.search(unit.text)
            and not self.optional_marker.search(unit.text)  # "If you'd rather B, say so and I'll"
            and not any(self._blocks(unit, name) for name in ("offer", "pleasantry"))
        ):
            acts.add("need")  # "Add X to the chat so I can ...": the agent goes on with it
        if "need" in acts and self.no_need.search(unit.text):
            acts.discard("need")
        if is_question(unit.text):
            acts.add("question")
        elif (
            acts & _REPORTED_AWAY
            and self.reported_work.search(unit.text)
            and not _CLAUSE.search(unit.text)
        ):
            # "I changed the test to pick a free port.": one clause reporting the agent's own
            # work, not a request ("I've drafted it; say yes and I'll run it" still asks).
            acts -= _REPORTED_AWAY
        return acts

    def _blocker(
        self, unit: Unit, after: list[Unit], before: Unit | None = None, offers: bool = True
    ) -> str | None:
        """Why an asking unit doesn't count, if it doesn't; `after`: the next two units of its
        paragraph, `before`: the one before it there; `offers`: whether an offer's wording
        makes it optional (not when the text says the work is stuck: "Do you want me to also
        update the chart? The deploy will fail without it")."""
        for name, pattern in self.blockers.items():
            if pattern.search(unit.text) and (offers or name != "offer"):
                return name
        if not is_question(unit.text):
            return None
        if unit.reported:
            return "reported"
        if unit.posed:
            return "self_answered"
        asked = ANTICIPATED.sub("", unit.text)  # "You might wonder: why not ...?"
        if after and not is_question(after[0].text) and explained(asked, after[0].text):
            return "self_answered"  # "Why not cache it? Because ..."
        # Answered right after: a plain yes/no, or anything not held open by what follows.
        if after and self.strong_answers.search(answer(after[0].text)):
            return "self_answered"
        if any(
            self.strong_answers.search(u.text) or self.answer_endings.search(u.text) for u in after
        ):
            return "self_answered"
        if self._decided(unit, after, before, strict=bool(self.strict_questions.search(unit.text))):
            return "self_answered"  # not "Thoughts on X? It's the last piece of the issue."
        followed = bool(after) and not is_question(after[0].text)
        if (
            followed
            and RHETORICAL.search(asked)
            and not self.addressed.search(asked)
            and not any(self.open.search(u.text) for u in after)  # "... I stopped there."
        ):
            return "self_answered"
        if unit.heading and not self.addressed.search(unit.text):
            return "self_answered"  # a heading that poses the question the text answers
        return None
