"""How the ask classifier v2 reads a message's layout (its units, from reading.py): the list
after an intro line, the units under a heading, the line a list item sits under, and options
labelled on lines of their own ("A: keep the alias", "B: remove it")."""

from __future__ import annotations

import re

from capabench.swe.asks.reading import Unit

_LABEL = re.compile(r"^(?:option |approach |choice |plan )?\(?([a-d1-4])\)?\s*[:—–]\s*\S", re.I)


def list_after(found: list[Unit], i: int) -> tuple[list[Unit], list[Unit]]:
    """The list items right after unit `i`, and the two units after them."""
    items = []
    for later in found[i + 1 :]:
        if not later.item:
            break
        items.append(later)
    return items, found[i + 1 + len(items) : i + 3 + len(items)]


def labelled(found: list[Unit], i: int) -> list[Unit]:
    """The units from `i` labelled in order, "A:", "B:", ... or "1:", "2:", ...: options
    written without list markup ([] unless unit `i` is labelled "A" or "1")."""
    run: list[Unit] = []
    previous = ""
    for unit in found[i:]:
        label = _LABEL.match(unit.text)
        mark = label.group(1).lower() if label else ""
        if not mark or (ord(mark) != ord(previous) + 1 if previous else mark not in "a1"):
            break
        run.append(unit)
        previous = mark
    return run


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
