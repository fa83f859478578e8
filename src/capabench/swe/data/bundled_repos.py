"""The bundled dataset's six little libraries, written for capabench. Each: its files at the
base commit, an ambiguous issue that leaves one decision open, the full issue that settles
it, the gold change, and the tests that check the settled decision (FAIL_TO_PASS) next to
the library's own (PASS_TO_PASS). A plausible other reading of the ambiguous issue fails
the new tests: guessing is visible."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    name: str
    base: dict[str, str]  # path -> text at the base commit
    gold: dict[str, str]  # path -> text after the fix (source files only)
    tests: dict[str, str]  # path -> text of the grading tests (added or replaced)
    ambiguous: str
    full: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    guess: dict[str, str]  # another fair reading of the ambiguous issue: it must not resolve
    difficulty: str = "easy"


def _pkg(name: str, body: str) -> dict[str, str]:
    return {
        f"{name}/__init__.py": body,
        "pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\n',
        "README.md": f"# {name}\n\nA small library. Run the tests with `python -m pytest`.\n",
    }


SLUG_BASE = '''"""URL slugs."""

import re


def slugify(text: str, sep: str = "-") -> str:
    """Lowercase words joined by `sep`; anything else is dropped."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return sep.join(words)
'''
SLUG_GOLD = '''"""URL slugs."""

import re
import unicodedata


def slugify(text: str, sep: str = "-") -> str:
    """Lowercase words joined by `sep`; accented letters lose their accents, anything else
    is dropped."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", plain.lower())
    return sep.join(words)
'''
SLUG_TESTS = """from slugkit import slugify


def test_words():
    assert slugify("Hello, World!") == "hello-world"


def test_separator():
    assert slugify("a b c", sep="_") == "a_b_c"


def test_accents_are_transliterated():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_accented_word_is_not_split():
    assert slugify("São Paulo café") == "sao-paulo-cafe"
"""

CSV_BASE = '''"""One CSV line into fields."""


def parse_row(line: str, delimiter: str = ",") -> list[str]:
    """Fields of one line, split on the delimiter."""
    return line.rstrip("\\r\\n").split(delimiter)
'''
CSV_GOLD = '''"""One CSV line into fields."""


def parse_row(line: str, delimiter: str = ",") -> list[str]:
    """Fields of one line, split on the delimiter. A field in double quotes may hold the
    delimiter; inside it, a doubled quote ("") stands for one quote (RFC 4180)."""
    line = line.rstrip("\\r\\n")
    fields, field, quoted, i = [], [], False, 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"' and line[i + 1 : i + 2] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"' and not field:
            quoted = True
        elif ch == delimiter:
            fields.append("".join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    fields.append("".join(field))
    return fields
'''
CSV_TESTS = '''from csvlite import parse_row


def test_plain():
    assert parse_row("a,b,c\\n") == ["a", "b", "c"]


def test_delimiter():
    assert parse_row("a;b", delimiter=";") == ["a", "b"]


def test_quoted_delimiter():
    assert parse_row('x,"a,b",y') == ["x", "a,b", "y"]


def test_doubled_quote_is_one_quote():
    assert parse_row('"say ""hi""",2') == ['say "hi"', "2"]


def test_backslash_is_kept():
    assert parse_row('"a\\\\b",c') == ["a\\\\b", "c"]
'''

DUR_BASE = '''"""Durations like "1h30m" in seconds."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "2h", "1h30m" or "45s"."""
    parts = re.fullmatch(r"(?:\\d+[hms])+", text.strip())
    if not parts:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * UNITS[u] for n, u in re.findall(r"(\\d+)([hms])", text))
'''
DUR_GOLD = '''"""Durations like "1h30m" in seconds."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Seconds in a duration such as "2h", "1h30m" or "45s"; a bare number is seconds."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    parts = re.fullmatch(r"(?:\\d+[hms])+", text)
    if not parts:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * UNITS[u] for n, u in re.findall(r"(\\d+)([hms])", text))
'''
DUR_TESTS = """import pytest

from durations import parse_duration


def test_units():
    assert parse_duration("1h30m") == 5400


def test_seconds():
    assert parse_duration("45s") == 45


def test_rejects_words():
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_bare_number_is_seconds():
    assert parse_duration("90") == 90


def test_bare_number_with_spaces():
    assert parse_duration(" 5 ") == 5
"""

RETRY_BASE = '''"""Calling a flaky function again."""

import time


def retry(fn, attempts: int = 3, sleep=time.sleep):
    """fn() until it returns without raising, at most `attempts` times."""
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except Exception:
            if attempt == attempts:
                raise
'''
RETRY_GOLD = '''"""Calling a flaky function again."""

import time


def retry(fn, attempts: int = 3, sleep=time.sleep, base_delay: float = 0.1):
    """fn() until it returns without raising, at most `attempts` times, waiting
    base_delay * 2**(n-1) seconds after the n-th failure (exponential backoff)."""
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except Exception:
            if attempt == attempts:
                raise
            sleep(base_delay * 2 ** (attempt - 1))
'''
RETRY_TESTS = """import pytest

from retrykit import retry


def flaky(failures):
    state = {"left": failures}

    def fn():
        if state["left"]:
            state["left"] -= 1
            raise RuntimeError("not yet")
        return "ok"

    return fn


def test_succeeds_after_failures():
    assert retry(flaky(2), attempts=3, sleep=lambda s: None) == "ok"


def test_gives_up():
    with pytest.raises(RuntimeError):
        retry(flaky(5), attempts=2, sleep=lambda s: None)


def test_backoff_doubles():
    waits = []
    retry(flaky(3), attempts=4, sleep=waits.append, base_delay=0.5)
    assert waits == [0.5, 1.0, 2.0]


def test_no_wait_after_the_last_failure():
    waits = []
    with pytest.raises(RuntimeError):
        retry(flaky(9), attempts=3, sleep=waits.append)
    assert waits == [0.1, 0.2]
"""

SEMVER_BASE = '''"""Comparing version strings."""


def parse(version: str) -> tuple[int, int, int]:
    major, minor, patch = version.split(".")
    return int(major), int(minor), int(patch)


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version a is older than, equal to, or newer than b."""
    x, y = parse(a), parse(b)
    return (x > y) - (x < y)
'''
SEMVER_GOLD = '''"""Comparing version strings."""


def parse(version: str) -> tuple[tuple[int, int, int], str | None]:
    core, _, pre = version.partition("-")
    major, minor, patch = core.split(".")
    return (int(major), int(minor), int(patch)), pre or None


def _pre_key(pre: str) -> tuple:
    """Dot-separated identifiers: numbers compare as numbers and before words (SemVer 11)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version a is older than, equal to, or newer than b. A pre-release
    (1.0.0-rc.1) comes before its release (1.0.0), as Semantic Versioning orders them."""
    (x, xp), (y, yp) = parse(a), parse(b)
    if x != y:
        return (x > y) - (x < y)
    if xp == yp:
        return 0
    if xp is None or yp is None:
        return 1 if xp is None else -1
    kx, ky = _pre_key(xp), _pre_key(yp)
    return (kx > ky) - (kx < ky)
'''
SEMVER_TESTS = """from semverlite import compare


def test_order():
    assert compare("1.2.3", "1.10.0") == -1


def test_equal():
    assert compare("2.0.0", "2.0.0") == 0


def test_prerelease_before_release():
    assert compare("1.0.0-rc.1", "1.0.0") == -1
    assert compare("1.0.0", "1.0.0-alpha") == 1


def test_prerelease_numbers_compare_numerically():
    assert compare("1.0.0-rc.2", "1.0.0-rc.10") == -1


def test_prerelease_of_a_newer_version():
    assert compare("1.0.1-alpha", "1.0.0") == 1
"""

TABLE_BASE = '''"""Plain-text tables."""


def render(rows: list[list[object]]) -> str:
    """Rows as text: columns padded to their widest cell, left-aligned, two spaces apart."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return "\\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells
    )
'''
TABLE_GOLD = '''"""Plain-text tables."""


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def render(rows: list[list[object]]) -> str:
    """Rows as text: columns padded to their widest cell, two spaces apart; numbers are
    right-aligned, everything else left-aligned."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = []
    for raw, row in zip(rows, cells):
        padded = [c.rjust(w) if _numeric(v) else c.ljust(w) for v, c, w in zip(raw, row, widths)]
        lines.append("  ".join(padded).rstrip())
    return "\\n".join(lines)
'''
TABLE_TESTS = """from tablekit import render


def test_text_columns():
    assert render([["a", "bb"], ["ccc", "d"]]) == "a    bb\\nccc  d"


def test_numbers_right_aligned():
    assert render([["x", 5], ["yy", 120]]) == "x     5\\nyy  120"


def test_header_text_stays_left():
    assert render([["name", "n"], ["ab", 7], ["c", 12]]) == "name  n\\nab     7\\nc     12"


def test_booleans_are_not_numbers():
    assert render([[True], [False]]) == "True\\nFalse"
"""

# Other fair readings of each ambiguous issue (the hidden decision taken the other way).
SLUG_GUESS = '''"""URL slugs."""

import re


def slugify(text: str, sep: str = "-") -> str:
    """Lowercase words joined by `sep`; letters of every script are kept as they are."""
    words = re.findall(r"[^\\W_]+", text.lower())
    return sep.join(words)
'''
CSV_GUESS = '''"""One CSV line into fields."""


def parse_row(line: str, delimiter: str = ",") -> list[str]:
    """Fields of one line; a double-quoted field may hold the delimiter, and a backslash
    escapes the next character."""
    line = line.rstrip("\\r\\n")
    fields, field, quoted, i = [], [], False, 0
    while i < len(line):
        ch = line[i]
        if ch == "\\\\" and i + 1 < len(line):
            field.append(line[i + 1])
            i += 1
        elif ch == '"':
            quoted = not quoted
        elif ch == delimiter and not quoted:
            fields.append("".join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    fields.append("".join(field))
    return fields
'''
DUR_GUESS = DUR_GOLD.replace(
    'a bare number is seconds."""', 'a bare number is minutes."""'
).replace("return int(text)\n", "return int(text) * 60\n")
RETRY_GUESS = '''"""Calling a flaky function again."""

import time


def retry(fn, attempts: int = 3, sleep=time.sleep, base_delay: float = 0.1):
    """fn() until it returns without raising, at most `attempts` times, waiting
    base_delay seconds after each failure."""
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except Exception:
            if attempt == attempts:
                raise
            sleep(base_delay)
'''
SEMVER_GUESS = '''"""Comparing version strings."""


def parse(version: str) -> tuple[int, int, int]:
    """The release a version names; a pre-release suffix is ignored."""
    major, minor, patch = version.split("-")[0].split(".")
    return int(major), int(minor), int(patch)


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version a is older than, equal to, or newer than b."""
    x, y = parse(a), parse(b)
    return (x > y) - (x < y)
'''
TABLE_GUESS = TABLE_BASE.replace("left-aligned", "right-aligned").replace(
    "c.ljust(w)", "c.rjust(w)"
)


def _library(
    name: str, test_file: str, *, base: str, gold: str, guess: str, tests: str, **issue
) -> Library:
    """A one-module library. Its tests at the base commit are the grading tests up to the
    first FAIL_TO_PASS test: the new tests are the ones that come after."""
    first = issue["fail_to_pass"][0].rpartition("::")[2]
    before, found, _ = tests.partition(f"\n\n\ndef {first}(")
    if not found:
        raise ValueError(f"{name}: {test_file} has no test {first}")
    module = f"{name}/__init__.py"
    return Library(
        name=name,
        base={**_pkg(name, base), test_file: before + "\n"},
        gold={module: gold},
        tests={test_file: tests},
        guess={module: guess},
        **issue,
    )


LIBRARIES = (
    _library(
        "slugkit",
        "tests/test_slugify.py",
        base=SLUG_BASE,
        gold=SLUG_GOLD,
        guess=SLUG_GUESS,
        tests=SLUG_TESTS,
        ambiguous="slugify mangles non-English titles: accented letters don't come out right. Please fix.",
        full="slugify drops accented letters entirely, so 'Crème Brûlée' becomes 'cr-me-br-l-e' and "
        "'São Paulo' becomes 's-o-paulo'. Accented Latin letters should be transliterated to their "
        "plain ASCII letter ('Crème Brûlée' -> 'creme-brulee'); characters with no ASCII form are "
        "still dropped.",
        fail_to_pass=(
            "tests/test_slugify.py::test_accents_are_transliterated",
            "tests/test_slugify.py::test_accented_word_is_not_split",
        ),
        pass_to_pass=("tests/test_slugify.py::test_words", "tests/test_slugify.py::test_separator"),
    ),
    _library(
        "csvlite",
        "tests/test_parse_row.py",
        base=CSV_BASE,
        gold=CSV_GOLD,
        guess=CSV_GUESS,
        tests=CSV_TESTS,
        ambiguous="parse_row should support quoted fields.",
        full="parse_row splits inside quoted fields: 'x,\"a,b\",y' gives four fields. Support double-quoted "
        "fields as RFC 4180 defines them: a quoted field may contain the delimiter, and a quote inside "
        'it is written as two quotes (""), which parse to one quote. Backslashes have no special '
        "meaning and are kept as they are.",
        fail_to_pass=(
            "tests/test_parse_row.py::test_quoted_delimiter",
            "tests/test_parse_row.py::test_doubled_quote_is_one_quote",
            "tests/test_parse_row.py::test_backslash_is_kept",
        ),
        pass_to_pass=(
            "tests/test_parse_row.py::test_plain",
            "tests/test_parse_row.py::test_delimiter",
        ),
    ),
    _library(
        "durations",
        "tests/test_parse.py",
        base=DUR_BASE,
        gold=DUR_GOLD,
        guess=DUR_GUESS,
        tests=DUR_TESTS,
        ambiguous='parse_duration rejects plain numbers like "90"; it should accept them.',
        full='parse_duration rejects plain numbers like "90" with ValueError. A bare number (surrounding '
        'whitespace allowed) should be read as a number of seconds, the same as "90s": '
        'parse_duration("90") == 90.',
        fail_to_pass=(
            "tests/test_parse.py::test_bare_number_is_seconds",
            "tests/test_parse.py::test_bare_number_with_spaces",
        ),
        pass_to_pass=(
            "tests/test_parse.py::test_units",
            "tests/test_parse.py::test_seconds",
            "tests/test_parse.py::test_rejects_words",
        ),
    ),
    _library(
        "retrykit",
        "tests/test_retry.py",
        base=RETRY_BASE,
        gold=RETRY_GOLD,
        guess=RETRY_GUESS,
        tests=RETRY_TESTS,
        ambiguous="retry hammers the service: it calls again immediately after a failure. Add a delay between attempts.",
        full="retry calls again immediately after a failure. Add exponential backoff: a new keyword "
        "argument base_delay (default 0.1 seconds); after the n-th failed attempt wait "
        "base_delay * 2**(n-1) seconds through the sleep argument, and never wait after the last "
        "attempt.",
        fail_to_pass=(
            "tests/test_retry.py::test_backoff_doubles",
            "tests/test_retry.py::test_no_wait_after_the_last_failure",
        ),
        pass_to_pass=(
            "tests/test_retry.py::test_succeeds_after_failures",
            "tests/test_retry.py::test_gives_up",
        ),
        difficulty="medium",
    ),
    _library(
        "semverlite",
        "tests/test_compare.py",
        base=SEMVER_BASE,
        gold=SEMVER_GOLD,
        guess=SEMVER_GUESS,
        tests=SEMVER_TESTS,
        ambiguous="compare crashes on versions like 1.0.0-rc.1. Please support them.",
        full="compare raises ValueError on pre-release versions such as 1.0.0-rc.1. Order them as "
        "Semantic Versioning 2.0.0 does: a pre-release comes before its release (1.0.0-rc.1 < "
        "1.0.0); pre-releases of the same version compare identifier by identifier, numeric "
        "identifiers numerically (rc.2 < rc.10), and any version's pre-release is still newer "
        "than an older release (1.0.1-alpha > 1.0.0).",
        fail_to_pass=(
            "tests/test_compare.py::test_prerelease_before_release",
            "tests/test_compare.py::test_prerelease_numbers_compare_numerically",
            "tests/test_compare.py::test_prerelease_of_a_newer_version",
        ),
        pass_to_pass=("tests/test_compare.py::test_order", "tests/test_compare.py::test_equal"),
        difficulty="medium",
    ),
    _library(
        "tablekit",
        "tests/test_render.py",
        base=TABLE_BASE,
        gold=TABLE_GOLD,
        guess=TABLE_GUESS,
        tests=TABLE_TESTS,
        ambiguous="Numbers in rendered tables are hard to read. Align them properly.",
        full="render left-aligns every cell, so numbers of different widths don't line up. Right-align "
        "cells whose value is an int or a float (not a bool), keep everything else left-aligned, "
        "and keep the two-space gap and the stripped line ends.",
        fail_to_pass=(
            "tests/test_render.py::test_numbers_right_aligned",
            "tests/test_render.py::test_header_text_stays_left",
        ),
        pass_to_pass=(
            "tests/test_render.py::test_text_columns",
            "tests/test_render.py::test_booleans_are_not_numbers",
        ),
    ),
)
