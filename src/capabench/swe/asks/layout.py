"""How the ask classifier v2 reads a message's layout (its units, from reading.py): the list
after an intro line, the units under a heading, the line a list item sits under, and options
labelled on lines of their own ("A: keep the alias", "B: remove it", "(A) migrate now")."""

from __future__ import annotations

import re

from capabench.swe.asks.reading import Unit

_LABEL = re.compile(r"^(?:option |approach |choice |plan )?\(?([a-d1-4])\)?\s*[:—–]\s*\S", re.I)
# "(A) migrate now" / "(B) migrate in the background": list items, their labels read away
_LETTERED = re.compile(r"^[ \t]*\(?A\)[ \t]+\S[^\n]*\n(?:[ \t]*\n)?[ \t]*\(?B\)[ \t]+\S", re.M)
# "**A.** Return partial results": the label alone, split from its option at the full stop
_BARE_LABEL = re.compile(r"^(?:option |approach )?\(?([a-d])\)?[.:)]?$", re.I)


def list_after(found: list[Unit], i: int) -> tuple[list[Unit], list[Unit]]:
    """The list items right after unit `i`, and the two units after them."""
    items = []
    for later in found[i + 1 :]:
        if not later.item:
            break
        items.append(later)
    return items, found[i + 1 + len(items) : i + 3 + len(items)]


def labelled(found: list[Unit], i: int) -> tuple[list[Unit], list[Unit]]:
    """The options labelled in order from unit `i`, "A:", "B:", ... or "1:", "2:", ..., or
    "**A.** ...": options written without list markup (none unless unit `i` is labelled "A"
    or "1"), and the two units after them."""
    run: list[Unit] = []
    previous = ""
    j = i
    while j < len(found):
        label = _LABEL.match(found[j].text) or _BARE_LABEL.match(found[j].text)
        mark = label.group(1).lower() if label else ""
        if not mark or (ord(mark) != ord(previous) + 1 if previous else mark not in "a1"):
            break
        bare = label.re is _BARE_LABEL and j + 1 < len(found)
        run.append(found[j + 1] if bare else found[j])
        previous = mark
        j += 2 if bare else 1
    return run, found[j : j + 2]


def section(found: list[Unit], i: int, limit: int = 5) -> list[Unit]:
    """Up to `limit` units under heading `i`, stopping at the next heading."""
    units = []
    for unit in found[i + 1 : i + 1 + limit]:
        if unit.heading:
            break
        units.append(unit)
    return units


def list_intro(found: list[Unit], i: int) -> Unit | None:
    """The line list item `i` sits under: the nearest unit before its list that isn't an item
    ("## Next steps (optional)", "Options:"), or None."""
    j = i
    while j >= 0 and found[j].item:
        j -= 1
    return found[j] if 0 <= j < i else None


def lettered_lines(text: str) -> tuple[str, str]:
    """The first of the options lettered "(A)", "(B)" on lines of their own in `text`, and
    the text after it; ("", "") when there are none."""
    found = _LETTERED.search(text)
    if not found:
        return "", ""
    return found.group(0).splitlines()[0].strip(), text[found.start() :]
