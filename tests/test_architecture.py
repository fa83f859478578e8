"""The shape of the house: the layers of docs/architecture.md (a module imports only
its own layer and those before it; function-level imports included, and so are imports under
TYPE_CHECKING: a layer that needs a later one's type has the type in the wrong place), no
import circle, nothing that plays, remembers or serves sessions imports how a benchmark is
built, and no module too long to read (data aside)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MAP = ROOT / "docs" / "architecture.md"  # the map a newcomer reads, linked from the README
DATA_MODULES = {"capabench/swe/data/bundled_repos.py"}  # the bundled dataset's sources, as text

# docs/architecture.md's table, lowest first: one row a layer, each entry a module or a package
# (with everything under it). Imports within a row are free (the circle test still holds).
LAYERS = [
    (
        "capabench",
        "capabench._compat",
        "capabench.records",
        "capabench.paths",
        "capabench.registry",  # issue 29 point 1's one Registry type (another branch)
        "capabench.interrupt",
        "capabench.messages",
    ),
    ("capabench.models",),
    ("capabench.conventions", "capabench.profiles"),
    ("capabench.tasks", "capabench.judge"),
    ("capabench.benchmark",),
    ("capabench.history",),
    ("capabench.simulate",),
    ("capabench.build",),
    ("capabench.executors", "capabench.batch"),
    ("capabench.metrics",),
    ("capabench.store", "capabench.player", "capabench.runner", "capabench.blank_control"),
    ("capabench.report",),
    ("capabench.studies",),
    ("capabench.swe",),
    ("capabench.annotate",),
    ("capabench.testing",),
    ("capabench.cli",),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "capabench").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The capabench modules a file imports anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return {n for n in names if n in modules}


def _layer(module: str) -> int | None:
    """The row of LAYERS a module is on (its longest entry wins: capabench.records before
    capabench), or None when the map leaves it out."""
    best = None
    for row, entries in enumerate(LAYERS):
        for entry in entries:
            if (module == entry or module.startswith(entry + ".")) and (
                best is None or len(entry) > len(best[1])
            ):
                best = (row, entry)
    if best is None or (best[1] == "capabench" and module != "capabench"):
        return None
    return best[0]


def test_every_module_is_on_the_map():
    missing = sorted(m for m in _modules() if _layer(m) is None)
    assert not missing, f"not on LAYERS (and docs/architecture.md): {missing}"


def _mapped_layers(text: str) -> list[set[str]]:
    """The rows of the map's table, each the set of modules its first column names
    (`__init__.py` is the package itself, `x.py` a module, `x/` a package)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        place = line.split("|")[1]
        names = re.findall(r"`([^`]+)`", place)
        rows.append(
            {
                "capabench"
                if n == "__init__.py"
                else "capabench." + n.removesuffix(".py").rstrip("/")
                for n in names
            }
        )
    return rows


def test_the_map_a_newcomer_reads_is_the_map_tested():
    assert _mapped_layers(MAP.read_text()) == [set(row) for row in LAYERS]


def test_a_map_that_disagrees_with_the_layers_is_caught():
    text = MAP.read_text().replace("| `studies.py` |", "| `studies.py`, `extra.py` |")
    assert _mapped_layers(text) != [set(row) for row in LAYERS]


def test_imports_follow_the_layers():
    """A module imports only from its own layer or one before it."""
    modules = _modules()
    against = {
        m: sorted(t for t in _imports(p, modules) if (_layer(t) or 0) > (_layer(m) or 0))
        for m, p in modules.items()
    }
    assert not {m: t for m, t in against.items() if t}, {m: t for m, t in against.items() if t}


def test_no_import_circle():
    modules = _modules()
    graph = {m: _imports(p, modules) - {m} for m, p in modules.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                raise AssertionError(
                    "import circle: " + " -> ".join([*path[path.index(target) :], target])
                )
            if target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_what_plays_sessions_does_not_import_the_construction():
    modules = _modules()
    players = [
        m
        for m in modules
        if m in ("capabench.runner", "capabench.player")
        or m.startswith(("capabench.history", "capabench.testing", "capabench.executors"))
    ]
    offenders = {
        m: sorted(t for t in _imports(modules[m], modules) if t.startswith("capabench.build"))
        for m in players
    }
    assert not {m: t for m, t in offenders.items() if t}


def test_executors_know_nothing_of_what_they_play():
    """An executor plays any worker recipe (sessions, agent runs, grades): it imports no
    other part of capabench, so a new arm needs no change there."""
    modules = _modules()
    # interrupt: the process-wide Ctrl-C request, below everything, which executors raise;
    # registry: the one registry type, where executors register
    foundation = {"capabench", "capabench.interrupt", "capabench.registry"}
    for m in (m for m in modules if m.startswith("capabench.executors")):
        outside = {
            t
            for t in _imports(modules[m], modules)
            if not t.startswith("capabench.executors") and t not in foundation
        }
        assert not outside, (m, outside)


def test_no_module_is_too_long_to_read():
    long = {
        str(p.relative_to(SRC)): n
        for p in (SRC / "capabench").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 400
    }
    assert set(long) <= DATA_MODULES, long
