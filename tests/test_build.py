from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from capabench.benchmark import Benchmark, BenchmarkDirError, load_benchmark, write_benchmark
from capabench.build.builder import build
from capabench.build.consistency import inconsistencies
from capabench.build.design import design, mechanism_pairs
from capabench.build.request import leaks
from capabench.build.session import violations
from capabench.build.validate import balance_problems, user_problems, validate
from capabench.cli import app
from capabench.records import Turn

runner = CliRunner()


def test_design_is_balanced_and_seeded():
    cells = design(0)
    assert len(cells) == 60
    assert set(Counter(p for p, _ in cells).values()) == {6}
    assert set(Counter(frozenset(pair) for _, pair in cells).values()) == {4}
    assert len(Counter(frozenset(pair) for _, pair in cells)) == len(mechanism_pairs()) == 15
    for profile in {p for p, _ in cells}:
        pairs = [frozenset(pair) for p, pair in cells if p == profile]
        assert len(set(pairs)) == 6  # a profile never repeats a pair
    assert design(0) == cells and design(1) != cells


def test_the_built_benchmark_is_complete_and_valid(built, pool):
    bench, _ = built
    c = bench.manifest.counts
    assert (c["cells"], c["users"], c["sessions"], c["history"], c["heldout"]) == (
        60,
        60,
        600,
        300,
        300,
    )
    assert balance_problems(bench) == [] and user_problems(bench) == []
    report = validate(bench, pool=pool)
    assert report.problems == []
    assert (
        report.discriminating == report.appearances
    )  # every family discriminates wherever it appears
    assert len(report.appearances) >= 12
    history = [s for s in bench.sessions if s.split == "history"]
    assert all(s.trace and s.trace[-2].verdict == "passed" for s in history)
    assert all(not s.trace for s in bench.sessions if s.split == "heldout")
    strategies = Counter(s.trace[1].text.startswith("Before I write it") for s in history)
    assert strategies[True] and strategies[False]  # both ask-first and submit-then-fix traces


def test_same_seed_is_byte_identical_and_another_seed_differs(built, pool, tmp_path):
    _, first = built
    again = tmp_path / "again"
    write_benchmark(build(0, pool=pool), again)
    for name in (
        "manifest.json",
        "cells.jsonl",
        "users.jsonl",
        "sessions-history.jsonl",
        "sessions-heldout.jsonl",
    ):
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    from capabench.build.builder import build_cell
    from capabench.judge.spy import spy_tasks
    from capabench.tasks import load_humaneval

    shapes, _ = spy_tasks(load_humaneval(), pool)
    ours = load_benchmark(first)
    other_layout = design(1)
    _, user, sessions, _ = build_cell(0, *other_layout[0], shapes, 1, pool)
    assert (user.profile.id, user.slots, [s.task_id for s in sessions]) != (
        ours.users[0].profile.id,
        ours.users[0].slots,
        [s.task_id for s in ours.sessions[:10]],
    )


def test_validators_catch_broken_sessions(built, pool):
    from capabench.judge.spy import spy_tasks
    from capabench.tasks import load_humaneval

    bench, _ = built
    shapes, _ = spy_tasks(load_humaneval(), pool)
    session = bench.sessions[7]
    shape = shapes[session.task_id]
    assert violations(session, shape, pool) == []
    lax = session.model_copy(update={"hidden_tests": "def check(candidate):\n    pass\n"})
    found = violations(lax, shape, pool)
    assert any("not discriminating" in p for p in found) and any(
        "plain original" in p for p in found
    )
    broken = session.model_copy(update={"reference": session.original})
    assert any("composed reference fails" in p for p in violations(broken, shape, pool))
    slot = session.slots[0]
    leaky = session.model_copy(update={"request": session.request + "\n" + slot.statement})
    assert leaks(leaky.request, leaky.slots, leaky.hidden_tests)
    other_alt = next(
        a
        for a in __import__("capabench.conventions", fromlist=["REGISTRY"])
        .REGISTRY[slot.family]
        .alternatives
        if a.id != slot.alternative
    )
    drifted = session.model_copy(
        update={
            "slots": (slot.model_copy(update={"alternative": other_alt.id}), *session.slots[1:])
        }
    )
    tampered = Benchmark(
        bench.manifest,
        bench.cells,
        bench.users,
        [drifted if s.id == session.id else s for s in bench.sessions],
    )
    assert user_problems(tampered) == [f"{session.id}: conventions differ from its user's"]
    unbalanced = Benchmark(bench.manifest, bench.cells[:-1], bench.users, bench.sessions)
    assert balance_problems(unbalanced)


def test_consistency_flags_contradicting_traces(built):
    bench, _ = built
    from capabench.conventions import REGISTRY

    session = next(s for s in bench.sessions if s.split == "history" and s.index == 1)
    previous = bench.sessions[bench.sessions.index(session) - 1]
    assert inconsistencies(session, previous) == []
    slot = session.slots[0]
    other = next(a for a in REGISTRY[slot.family].alternatives if a.id != slot.alternative)
    contradicting = (
        *session.trace,
        Turn(role="user", text=other.statement, revealed=(slot.family,)),
    )
    found = inconsistencies(session.model_copy(update={"trace": contradicting}), previous)
    assert any("not the user's statement" in p for p in found) and any(
        "but the user holds" in p for p in found
    )
    unfinished = session.model_copy(update={"trace": session.trace[:2]})
    assert any("accepted solution" in p for p in inconsistencies(unfinished, previous))


def test_inconsistent_trace_is_regenerated(built, pool, monkeypatch):
    from capabench.build import builder
    from capabench.simulate import SessionResult

    bench, _ = built
    session = next(s for s in bench.sessions if s.split == "history").model_copy(
        update={"trace": ()}
    )
    real = builder.resolve
    calls = []

    def flaky(s, strategy, p=None, **kw):
        calls.append(strategy)
        if len(calls) == 1:  # the first attempt never reaches an accepted solution
            return SessionResult(turns=[Turn(role="user", text=s.request)], solved_turn=None)
        return real(s, strategy, p, **kw)

    monkeypatch.setattr(builder, "resolve", flaky)
    traced = builder._with_consistent_trace(session, None, pool)
    assert len(calls) == 2 and calls[0] != calls[1]
    assert traced.trace and inconsistencies(traced, None) == []


def test_export_round_trip_and_tamper_detection(built, tmp_path):
    bench, path = built
    loaded = load_benchmark(path)
    assert (
        loaded.sessions == bench.sessions
        and loaded.users == bench.users
        and loaded.cells == bench.cells
    )
    manifest = loaded.manifest
    assert manifest.content_hash and set(manifest.files) == {
        "cells.jsonl",
        "users.jsonl",
        "sessions-history.jsonl",
        "sessions-heldout.jsonl",
    }
    assert (
        hashlib.sha256((path / "users.jsonl").read_bytes()).hexdigest()
        == manifest.files["users.jsonl"]
    )
    copy = tmp_path / "copy"
    write_benchmark(loaded, copy)
    (copy / "users.jsonl").write_text((copy / "users.jsonl").read_text().replace("acme", "acne"))
    with pytest.raises(BenchmarkDirError, match="does not match the manifest"):
        load_benchmark(copy)
    with pytest.raises(BenchmarkDirError, match="not a benchmark directory"):
        load_benchmark(tmp_path)


def test_default_benchmark_is_built_once_and_cached(built, monkeypatch, tmp_path):
    from capabench.benchmark import cached_default
    from capabench.build import default

    bench, _ = built
    monkeypatch.setenv("CAPABENCH_CACHE", str(tmp_path))
    with pytest.raises(BenchmarkDirError, match="not built yet"):
        cached_default(0)
    builds = []
    monkeypatch.setattr(default, "build", lambda seed, **kw: builds.append(seed) or bench)
    first = default.default_benchmark(0)
    second = default.default_benchmark(0)
    assert (
        builds == [0]
        and first.sessions == second.sessions == bench.sessions == cached_default(0).sessions
    )
    built_dirs = [p for p in (tmp_path / "benchmarks").iterdir() if not p.name.startswith(".")]
    assert [p.name[:11] for p in built_dirs] == ["capa-seed0-"]


def test_processes_asking_for_the_default_benchmark_at_once_build_it_once(
    built, monkeypatch, tmp_path
):
    import threading
    import time

    from capabench.build import default

    bench, _ = built
    monkeypatch.setenv("CAPABENCH_CACHE", str(tmp_path))
    builds = []

    def slow_build(seed, **kw):
        builds.append(seed)
        time.sleep(0.3)  # long enough for every other caller to arrive while it builds
        return bench

    monkeypatch.setattr(default, "build", slow_build)
    loaded, errors = [], []

    def ask():
        try:
            loaded.append(default.default_benchmark(0).sessions)
        except Exception as exc:  # a reader that found the directory half replaced
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and builds == [0]
    assert all(sessions == bench.sessions for sessions in loaded) and len(loaded) == 4


def test_the_cache_key_follows_every_module_the_build_depends_on(tmp_path):
    """A change to code that shapes the history traces (code extraction, task loading, the
    judge's inside) invalidates the default benchmark; a change elsewhere doesn't."""
    import shutil

    from capabench.benchmark import build_sources, source_fingerprint

    src = Path(__file__).resolve().parents[1] / "src"
    copy = tmp_path / "src"
    shutil.copytree(
        src / "capabench", copy / "capabench", ignore=shutil.ignore_patterns("__pycache__")
    )
    sources = {p.relative_to(copy).as_posix() for p in build_sources(copy)}
    for needed in (
        "capabench/judge/extract.py",
        "capabench/messages.py",
        "capabench/tasks/humaneval.py",
        "capabench/build/dialogue.py",
        "capabench/judge/capa_inside/checker.py",
        "capabench/conventions/families/naming.py",
    ):
        assert needed in sources
    assert (
        not {"capabench/report/render.py", "capabench/cli/run.py", "capabench/runner.py"} & sources
    )
    before = source_fingerprint(copy)
    assert before == source_fingerprint(src)
    for changed in ("judge/extract.py", "tasks/humaneval.py"):
        (copy / "capabench" / changed).write_text(
            (copy / "capabench" / changed).read_text() + "\n# changed\n"
        )
        assert source_fingerprint(copy) != before
        before = source_fingerprint(copy)
    (copy / "capabench" / "cli.py").write_text("# unrelated\n")
    assert source_fingerprint(copy) == before


def test_cli_inspect_and_validate(built, tmp_path):
    bench, path = built
    overview = runner.invoke(app, ["inspect", str(path)])
    assert overview.exit_code == 0 and "user00" in overview.stdout
    history = next(s for s in bench.sessions if s.split == "history")
    shown = runner.invoke(app, ["inspect", str(path), history.id], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert (
        "initial request" in shown.stdout
        and "hidden slots" in shown.stdout
        and "submission: passed" in shown.stdout
    )
    assert history.slots[0].statement.split(":")[0] in shown.stdout
    missing = runner.invoke(app, ["inspect", str(path), "cell99-9"])
    assert missing.exit_code == 2 and "no session" in missing.output
    not_a_dir = runner.invoke(app, ["validate", str(tmp_path)])
    assert not_a_dir.exit_code == 2 and "not a benchmark directory" in not_a_dir.output


def test_every_request_shows_its_tasks_text_as_written(built, pool):
    """A request states the task as its prompt does, less what its conventions decide
    (information control, rewritten from the task's own text): an escape in an example
    ("abc\\ndef") stays the two characters, never a line break."""
    from capabench.build.information import Decided
    from capabench.build.request import controlled, description
    from capabench.tasks import load_humaneval

    bench, _ = built
    tasks = {t.id: t for t in load_humaneval()}
    validation_only = 0
    for session in bench.sessions:
        task = tasks[session.task_id]
        shown = controlled(task, session.slots, pool).description
        assert shown in session.request, session.id
        if not Decided.of(session.slots).shape:  # only examples a validation governs go
            assert all(line in description(task) for line in shown.splitlines()), session.id
            validation_only += 1
    assert validation_only
    assert "\\n" in description(
        tasks["HumanEval/51"]
    )  # remove_vowels("abcdef\nghijklm") as written
