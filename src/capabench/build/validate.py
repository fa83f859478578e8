"""Validators over a whole benchmark: every session valid, users consistent, design balanced."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from capabench.benchmark import Benchmark
from capabench.build.consistency import inconsistencies
from capabench.build.design import Design, mechanism_pairs
from capabench.build.request import leaks
from capabench.build.session import violations
from capabench.judge.sandbox import SandboxPool, default_pool
from capabench.judge.spy import spy_tasks


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    discriminating: Counter = field(
        default_factory=Counter
    )  # family -> sessions where it discriminates
    appearances: Counter = field(default_factory=Counter)  # family -> sessions it appears in
    sessions_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def balance_problems(bench: Benchmark) -> list[str]:
    plan = Design.of(bench.manifest.design)  # the design it was built in (the paper's if none)
    cells = plan.cells
    found = []
    if len(bench.cells) != cells:
        found.append(f"{len(bench.cells)} cells, expected {cells}")
    per_profile = Counter(c.profile_id for c in bench.cells)
    for profile in plan.profiles:
        if per_profile[profile] != cells // len(plan.profiles):
            found.append(
                f"profile {profile} is in {per_profile[profile]} cells, expected {cells // len(plan.profiles)}"
            )
    per_pair = Counter(frozenset(c.mechanisms) for c in bench.cells)
    for pair in mechanism_pairs():
        if per_pair[frozenset(pair)] != plan.cells_per_pair:
            found.append(
                f"pair {pair[0].value} + {pair[1].value} is in {per_pair[frozenset(pair)]} cells"
            )
    by_cell = defaultdict(list)
    for s in bench.sessions:
        by_cell[s.cell].append(s)
    for cell in bench.cells:
        sessions = sorted(by_cell[cell.index], key=lambda s: s.index)
        if [s.index for s in sessions] != list(range(plan.sessions_per_cell)):
            found.append(f"cell {cell.index}: sessions {[s.index for s in sessions]}")
        if any((s.split == "history") != (s.index < plan.history) for s in sessions):
            found.append(f"cell {cell.index}: history/held-out split is off")
        if len({s.task_id for s in sessions}) != len(sessions):
            found.append(f"cell {cell.index}: a task repeats within the cell")
    return found


def user_problems(bench: Benchmark) -> list[str]:
    users = {u.id: u for u in bench.users}
    found = []
    for s in bench.sessions:
        user = users.get(s.user_id)
        if user is None:
            found.append(f"{s.id}: unknown user {s.user_id}")
        elif s.slots != user.slots or s.profile_id != user.profile.id:
            found.append(f"{s.id}: conventions differ from its user's")
    return found


def validate(
    bench: Benchmark, *, pool: SandboxPool | None = None, progress: Callable[[], None] | None = None
) -> Report:
    pool = pool or default_pool()
    report = Report(problems=balance_problems(bench) + user_problems(bench))
    shapes, _ = spy_tasks(bench.task_pool(), pool)
    by_id = {s.id: s for s in bench.sessions}

    def check(session):
        found = [
            f"{session.id}: leaks {what}"
            for what in leaks(session.request, session.slots, session.hidden_tests)
        ]
        shape = shapes.get(session.task_id)
        if shape is None:
            return [*found, f"{session.id}: task {session.task_id} can't carry conventions"]
        found += violations(session, shape, pool)
        if session.split == "history":
            previous = (
                by_id.get(f"cell{session.cell:02d}-{session.index - 1}") if session.index else None
            )
            found += inconsistencies(session, previous)
        if progress:
            progress()
        return found

    with ThreadPoolExecutor(pool.size) as ex:
        results = list(ex.map(check, bench.sessions))
    for session, found in zip(bench.sessions, results, strict=True):
        report.sessions_checked += 1
        report.problems += found
        for slot in session.slots:
            report.appearances[slot.family] += 1
            if not any("not discriminating: " + slot.family in p for p in found):
                report.discriminating[slot.family] += 1
    return report
