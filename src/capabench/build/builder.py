"""Build the benchmark. Deterministic from the seed: spy on every task (judge/spy.py), lay out
the balanced design (design.py), then fill each cell with a user and ten sessions, each
through the paper's three stages: the request written under information control
(request.py: stage 1), the history dialogue played to a resolved trace (dialogue.py: stage 2),
and the trace kept only when consistent with the user's earlier ones, else replayed
(consistency.py: stage 3); every draft checked by the validators (session.py)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import capabench
from capabench.benchmark import Benchmark
from capabench.build.consistency import inconsistencies
from capabench.build.contradictions import contradictions
from capabench.build.design import DEFAULT_DESIGN, Design, design
from capabench.build.dialogue import STRATEGIES, resolve
from capabench.build.request import (
    choose_cues,
    controlled,
    leaks,
    render_request,
    rewrite_request,
    signature,
)
from capabench.build.session import NotApplicable, make_hidden, violations
from capabench.conventions import REGISTRY, Family, Shape
from capabench.judge.sandbox import SandboxPool, default_pool
from capabench.judge.spy import spy_tasks
from capabench.models import ChatModel
from capabench.profiles import PROFILES_BY_ID
from capabench.records import Cell, Manifest, Mechanism, Session, Slot, Task, User
from capabench.tasks import load_humaneval

Progress = Callable[[str], None]


class BuildError(RuntimeError):
    pass


def _options(mechanism: Mechanism, rng: random.Random) -> list[Family]:
    options = sorted((f for f in REGISTRY.values() if f.mechanism == mechanism), key=lambda f: f.id)
    rng.shuffle(options)
    return options


@dataclass(frozen=True)
class Models:
    """Optional LLMs for the three places the paper uses one (all deterministic without)."""

    generator: ChatModel | None = None  # stage 1: rewrites requests under information control
    assistant: ChatModel | None = None  # stage 2: plays the assistant in history dialogues
    user: ChatModel | None = None  # stage 2: phrases the simulated user's replies


def _with_request(
    cell: int,
    index: int,
    user: User,
    shape: Shape,
    seed: int,
    pool: SandboxPool,
    models: Models,
    history: int,
) -> Session:
    choices = {slot.family: slot.alternative for slot in user.slots}
    session_id = f"cell{cell:02d}-{index}"
    hidden = make_hidden(shape, choices, session_id, pool)
    task = shape.task
    cues = choose_cues(user.slots, random.Random(f"capa-request:{seed}:{cell}:{task.id}"))
    request = render_request(controlled(task, user.slots, pool), user.profile, cues)
    draft = Session(
        id=session_id,
        user_id=user.id,
        profile_id=user.profile.id,
        cell=cell,
        index=index,
        split="history" if index < history else "heldout",
        task_id=task.id,
        base_entry_point=task.entry_point,
        entry_point=hidden.entry_point,
        signature=signature(task),
        request=request,
        slots=user.slots,
        hidden_tests=hidden.tests,
        reference=hidden.reference,
        original=task.reference_code,
    )
    if models.generator is None:
        return draft
    rewritten = rewrite_request(
        models.generator, request, task, user.profile, user.slots, cues, hidden.tests
    )
    if rewritten is None:
        return draft
    # An LLM's rewrite that states what the hidden tests reject keeps the template's request.
    candidate = draft.model_copy(update={"request": rewritten})
    return draft if contradictions(candidate, shape, pool) else candidate


def _with_consistent_trace(
    session: Session, previous: Session | None, pool: SandboxPool, models: Models | None = None
) -> Session:
    """Stages 2 and 3: a resolved trace, kept unless inconsistent with the user's earlier
    ones; an inconsistent one is replayed (the LLM assistant's first, then each scripted
    strategy)."""
    models = models or Models()
    first = STRATEGIES[session.index % len(STRATEGIES)]
    attempts = ([models.assistant] if models.assistant else []) + [
        first,
        *[s for s in STRATEGIES if s != first],
    ]
    problems: list[str] = []
    for strategy in attempts:
        result = resolve(session, strategy, pool, user_model=models.user)
        traced = session.model_copy(update={"trace": tuple(result.turns)})
        problems = inconsistencies(traced, previous)
        if result.solved and not problems:
            return traced
    raise BuildError(f"{session.id}: no consistent resolved trace: {problems}")


def build_cell(
    cell: int,
    profile_id: str,
    pair: tuple[Mechanism, Mechanism],
    shapes: dict[str, Shape],
    seed: int,
    pool: SandboxPool,
    models: Models | None = None,
    rank: int = 0,
    plan: Design = DEFAULT_DESIGN,
) -> tuple[Cell, User, list[Session], int]:
    """One cell's user and its sessions (the paper's: ten). `rank`: the cell's place among the cells of the same
    mechanism pair; cells that settle on the same two families take different combinations of
    alternatives by it, so no two users of a benchmark hold the same conventions."""
    models = models or Models()
    rng = random.Random(f"capa-cell:{seed}:{cell}")
    profile = PROFILES_BY_ID[profile_id]
    rejected = 0
    combos = [
        (a, b)
        for a in _options(pair[0], rng)
        for b in _options(pair[1], rng)
        if b.id not in a.conflicts and a.id not in b.conflicts
    ]
    for fa, fb in combos:
        alternatives = list(itertools.product(fa.alternatives, fb.alternatives))
        offset = random.Random(f"capa-alternatives:{seed}:{fa.id}:{fb.id}").randrange(
            len(alternatives)
        )
        chosen = alternatives[(offset + rank) % len(alternatives)]
        slots = tuple(
            Slot(family=f.id, mechanism=f.mechanism, alternative=alt.id, statement=alt.statement)
            for f, alt in zip((fa, fb), chosen, strict=True)
        )
        user = User(id=f"user{cell:02d}", profile=profile, mechanisms=pair, slots=slots)
        candidates = sorted(t for t, s in shapes.items() if fa.applies(s) and fb.applies(s))
        rng.shuffle(candidates)
        if len(candidates) < plan.sessions_per_cell:
            continue
        sessions: list[Session] = []
        for task_id in candidates:
            try:
                draft = _with_request(
                    cell, len(sessions), user, shapes[task_id], seed, pool, models, plan.history
                )
            except NotApplicable:
                rejected += 1
                continue
            if leaks(draft.request, draft.slots, draft.hidden_tests) or violations(
                draft, shapes[task_id], pool
            ):
                rejected += 1
                continue
            sessions.append(draft)
            if len(sessions) == plan.sessions_per_cell:
                break
        if len(sessions) < plan.sessions_per_cell:
            continue
        resolved: list[Session] = []
        for session in sessions:
            if session.split == "history":
                session = _with_consistent_trace(
                    session, resolved[-1] if resolved else None, pool, models
                )
            resolved.append(session)
        record = Cell(
            index=cell,
            profile_id=profile_id,
            mechanisms=pair,
            user_id=user.id,
            session_ids=tuple(s.id for s in resolved),
        )
        return record, user, resolved, rejected
    raise BuildError(
        f"cell {cell} ({profile_id}, {pair[0].value} + {pair[1].value}): no pair of its "
        f"mechanisms' conventions fits {plan.sessions_per_cell} of the pool's {len(shapes)} "
        "usable tasks; a larger task pool, or fewer --history/--heldout sessions per user"
    )


def build(
    seed: int = 0,
    *,
    pool: SandboxPool | None = None,
    progress: Progress | None = None,
    models: Models | None = None,
    tasks: list[Task] | None = None,
    plan: Design = DEFAULT_DESIGN,
) -> Benchmark:
    """The benchmark of a seed: over HumanEval in the paper's design, or over `tasks` (a
    custom pool, kept in the benchmark) in `plan`'s."""
    if problems := plan.problems():
        raise BuildError("; ".join(problems))
    models = models or Models()
    pool = pool or default_pool()
    note = progress or (lambda _msg: None)
    shapes, excluded = spy_tasks(tasks or load_humaneval(), pool)
    note(f"spied {len(shapes)} tasks ({len(excluded)} left out)")
    if len(shapes) < plan.sessions_per_cell:
        raise BuildError(
            f"the task pool has {len(shapes)} tasks that can carry conventions ({len(excluded)} "
            f"left out); each user needs {plan.sessions_per_cell} distinct ones "
            f"({plan.history} history + {plan.heldout} held-out)"
        )
    layout = design(seed, plan)

    ranks = [
        sum(layout[c][1] == layout[cell][1] for c in range(cell)) for cell in range(len(layout))
    ]

    def one(cell: int):
        profile_id, pair = layout[cell]
        out = build_cell(cell, profile_id, pair, shapes, seed, pool, models, ranks[cell], plan)
        note(f"cell {cell}")
        return out

    with ThreadPoolExecutor(pool.size) as ex:
        built = list(ex.map(one, range(len(layout))))
    cells = [b[0] for b in built]
    users = [b[1] for b in built]
    sessions = [s for b in built for s in b[2]]
    families = Counter(slot.family for s in sessions for slot in s.slots)
    manifest = Manifest(
        seed=seed,
        capabench_version=capabench.__version__,
        models={role: m.name for role, m in vars(models).items() if m is not None},
        counts={
            "cells": len(cells),
            "users": len(users),
            "sessions": len(sessions),
            "history": sum(s.split == "history" for s in sessions),
            "heldout": sum(s.split == "heldout" for s in sessions),
            "tasks_used": len({s.task_id for s in sessions}),
            "rejected_drafts": sum(b[3] for b in built),
        },
        families=dict(sorted(families.items())),
        excluded_tasks=excluded,
        files={},
        content_hash="",
        tasks="humaneval" if tasks is None else "custom",
        design=plan.record(),
    )
    return Benchmark(manifest, cells, users, sessions, tasks)
