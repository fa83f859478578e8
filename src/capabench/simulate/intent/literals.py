"""What text a regular expression can't match without: a set of literal strings, one of which
every match contains. A cheap `in` test on them skips a pattern that can't match, so a long
message isn't scanned by every alternative of every family's vocabulary."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from re import _constants as _c  # the parser behind re.compile (Python 3.11+)
from re import _parser as _p


def _required(items: Iterable) -> frozenset[str] | None:
    """Per element of the sequence, what it can't do without; the most selective element's
    set (the one whose shortest literal is longest), None when no element has one."""
    options: list[frozenset[str]] = []
    run = ""
    for op, av in items:
        if op is _c.LITERAL:
            run += chr(av)
            continue
        if run:
            options.append(frozenset({run}))
        run = ""
        sub = None
        if op is _c.SUBPATTERN:  # (group, flags added, flags removed, body)
            sub = None if av[1] & re.IGNORECASE else _required(av[-1])
        elif op is _c.BRANCH:
            branches = [_required(b) for b in av[1]]
            sub = frozenset().union(*branches) if all(branches) else None
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
            sub = _required(av[2])
        if sub:
            options.append(sub)
    if run:
        options.append(frozenset({run}))
    return max(options, key=lambda s: min(map(len, s)), default=None)


@cache
def required_literals(pattern: str) -> frozenset[str] | None:
    """Literals one of which any match of `pattern` (compiled without flags) contains; None
    when the pattern has no such literal (it must always be tried)."""
    parsed = _p.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:  # a literal's case is then anybody's
        return None
    return _required(parsed)


_BLOCKS = 4  # compiling a narrowed alternation costs more than scanning a few extra ones


class Alternation:
    """`p1|p2|...` compiled once, with what each alternative can't match without: where none
    of an alternative's literals occur in a text it can't match there, so a family none of
    whose alternatives can match is skipped, and the others are read as one narrowed
    alternation."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        self.compiled = _join(self.patterns) if self.patterns else None
        self._alone = [(required_literals(p), re.compile(p)) for p in self.patterns]
        self.literals = frozenset(lit for need, _ in self._alone for lit in need or ())
        self._unguarded = any(need is None for need, _ in self._alone)
        self._kept = lru_cache(maxsize=1024)(self._keep)
        self._of = lru_cache(maxsize=1024)(self._alternatives)

    def may_match(self, occur: frozenset[str]) -> bool:
        """Whether any alternative may match a text in which exactly `occur` occur (what
        `narrowed` is not None for, without compiling anything)."""
        return self._unguarded or not self.literals.isdisjoint(occur)

    def narrowed(self, occur: frozenset[str]) -> re.Pattern | None:
        """The alternation of only the alternatives that may match a text in which exactly
        `occur` occur (None: none may). The others can't match anywhere in that text, so it
        finds the same matches as the whole alternation, sooner."""
        if not self.may_match(occur):
            return None
        return self._of(self._kept(self.literals & occur))

    def _keep(self, hit: frozenset[str]) -> tuple[int, ...]:
        """The alternatives that may match, widened to whole blocks of neighbours: one
        alternation per set of blocks (at most 2**_BLOCKS), compiled once, serves every text
        whose possible alternatives fall in those blocks. A widened alternative can't match
        where its literals don't occur, and order is kept, so the matches are the same."""
        keep = [i for i, (need, _) in enumerate(self._alone) if need is None or need & hit]
        if len(keep) <= 1:
            return tuple(keep)
        n = len(self.patterns)
        blocks = {i * _BLOCKS // n for i in keep}
        return tuple(i for i in range(n) if i * _BLOCKS // n in blocks)

    def _alternatives(self, keep: tuple[int, ...]) -> re.Pattern | Split | None:
        # compiled per set of alternatives kept, which many sets of literals share
        if not keep:
            return None
        if len(keep) == 1:
            return self._alone[keep[0]][1]
        whole = (
            self.compiled
            if len(keep) == len(self.patterns)
            else _join(self.patterns[i] for i in keep)
        )
        led = [i for i in keep if _LETTER_LED.match(self.patterns[i])]
        if not led or len(led) == len(keep):
            return whole
        rest = [i for i in keep if i not in led]
        return Split(whole, *(_join(self.patterns[i] for i in part) for part in (led, rest)))


# An alternation whose alternatives all open with a word's first letter is scanned fast (the
# regular expression engine skips ahead to where one of those letters occurs); one other
# alternative (a digit pattern, a group) makes it try every alternative at every position.
_LETTER_LED = re.compile(r"(?:\\b)?(?:[a-z]|\(\?:[a-z][a-z' -]*(?:\|[a-z][a-z' -]*)*\))")


def _join(patterns: Iterable[str]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


class Split:
    """An alternation read as its letter-led alternatives alone wherever none of the others
    matches anywhere in the text: there the two find the same matches at the same places
    (an alternative that matches nowhere never wins a position), and the letter-led part
    with the others checked once is far sooner on a long text than the whole."""

    def __init__(self, whole: re.Pattern, led: re.Pattern, rest: re.Pattern) -> None:
        self.whole, self.led, self.rest = whole, led, rest

    def _for(self, text: str) -> re.Pattern:
        return self.whole if self.rest.search(text) else self.led

    def finditer(self, text: str):
        return self._for(text).finditer(text)

    def search(self, text: str):
        return self._for(text).search(text)

    def sub(self, repl, text: str) -> str:
        return self._for(text).sub(repl, text)


def occurring(literals: frozenset[str], text: str) -> frozenset[str]:
    return frozenset(lit for lit in literals if lit in text)


_HEAD = 3  # characters of a literal's start by which it is looked up


class LiteralIndex:
    """Which of many literals occur in a text, without a substring search per literal: a
    literal can occur only where its first characters do, so only those whose start occurs
    in the text are searched for (the same set as `occurring`, on a long text far sooner)."""

    def __init__(self, literals: frozenset[str]) -> None:
        self.short = tuple(lit for lit in literals if len(lit) <= _HEAD)
        self.by_head: dict[str, list[str]] = {}
        for lit in literals:
            if len(lit) > _HEAD:
                self.by_head.setdefault(lit[:_HEAD], []).append(lit)

    def occurring(self, text: str) -> frozenset[str]:
        heads = {text[i : i + _HEAD] for i in range(len(text) - _HEAD + 1)}
        found = [lit for lit in self.short if lit in text]
        for head in heads & self.by_head.keys():
            found.extend(lit for lit in self.by_head[head] if lit in text)
        return frozenset(found)
