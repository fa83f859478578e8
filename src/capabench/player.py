"""The session layer: what one run is (RunConfig), which sessions it plays, and the Player that
plays one session under one condition, with a model or a reference policy, into a result."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Literal

from capabench.benchmark import Benchmark
from capabench.conventions import REGISTRY, Shape
from capabench.history import HistoryContext, HistoryEnv, condition
from capabench.history.memory_store import MemoryStore
from capabench.judge import Verdicts
from capabench.judge.sandbox import SandboxPool
from capabench.judge.spy import spy_tasks
from capabench.metrics.moves import first_move, needless_asks
from capabench.models import ChatModel, InfraError, ModelOptions, is_local, is_policy, make_model
from capabench.models.pricing import cost, load_prices
from capabench.records import TURN_BUDGET, Session, SessionRun, Turn
from capabench.simulate import ModelAssistant, SimulatedUser, run_session
from capabench.simulate.intent import DEFAULT_MATCHER, make_matcher
from capabench.simulate.loop import SessionResult
from capabench.simulate.policies import PolicyInput, policy
from capabench.simulate.prompt import system_prompt
from capabench.store.manifest import RunManifest


@dataclass
class RunConfig:
    model: str
    conditions: list[str]
    limit: int | None = None
    epochs: int = 1
    concurrency: int = 4
    seed: int = 0
    user_model: str | None = None
    user_matcher: str = DEFAULT_MATCHER  # how the simulated user reads questions (intent matcher)
    options: ModelOptions = field(default_factory=ModelOptions)
    budget: int = TURN_BUDGET
    prices: str | None = None  # a JSON price table over the built-in one
    top_k: int = 2  # sessions a retrieval condition shows
    split: Literal["heldout", "history", "both"] = "heldout"  # history: only for `none`
    processes: int = 1  # worker processes sharing the concurrency (past one interpreter's lock)
    executor: str = "local"  # where sessions are played: "local" or "ray" (capabench.executors)
    ray_address: str | None = None  # an existing Ray cluster; None starts a local instance
    memory_dir: str | None = None  # where built memories are kept (the runner: the run's own)


def select_sessions(bench: Benchmark, limit: int | None, split: str = "heldout") -> list[Session]:
    """Sessions of a split ("heldout", "history" or "both": each split's own). With a limit,
    the first `limit` of a fixed order: round by round through each user's sessions, the
    cells in an order shuffled once from the benchmark's seed. Every user contributes before
    any contributes twice, and growing the limit only adds sessions (a resumed run keeps
    what it played)."""
    if split == "both":
        return select_sessions(bench, limit, "heldout") + select_sessions(bench, limit, "history")
    cells = sorted({s.cell for s in bench.sessions})
    random.Random(f"capa-session-order:{bench.manifest.seed}").shuffle(cells)
    rank = {cell: i for i, cell in enumerate(cells)}
    chosen = sorted(
        (s for s in bench.sessions if s.split == split), key=lambda s: (s.index, rank[s.cell])
    )
    return chosen if limit is None else chosen[:limit]


def infra_result(session: Session, cond: str, epoch: int, model: str, error: str) -> SessionRun:
    """The record of a job the infrastructure lost (e.g. its worker kept dying): an
    infrastructure error, which a resumed run plays again."""
    return SessionRun(
        **identity(session, cond, epoch, model),
        status="infra_error",
        error=error,
        turns=(Turn(role="user", text=session.request),),
    )


def identity(session: Session, cond: str, epoch: int, model: str) -> dict:
    """The fields that say which job a result is of."""
    return {
        "key": RunManifest.result_key(session.id, cond, epoch),
        "session_id": session.id,
        "split": session.split,
        "condition": cond,
        "epoch": epoch,
        "model": model,
        "cell": session.cell,
        "profile_id": session.profile_id,
        "mechanisms": tuple(REGISTRY[s.family].mechanism for s in session.slots),
        "task_id": session.task_id,
    }


class Player:
    """Plays one job (a session under a condition, in an epoch) with everything it needs:
    the model or policy, the history methods, the judge. No run directory: the batch layer
    stores what it returns."""

    def __init__(self, config: RunConfig, bench: Benchmark, pool: SandboxPool) -> None:
        methods = {name: condition(name) for name in config.conditions}  # typos fail first
        self.config = config
        self.bench = bench
        self.pool = pool
        self.policy = policy(config.model) if is_policy(config.model) else None
        # a policy's code is the harness's: judged once per run, whatever the condition
        self.verdicts = Verdicts() if self.policy else None
        self.model: ChatModel | None = (
            None if self.policy else make_model(config.model, config.options)
        )
        self.user_model = (
            make_model(config.user_model, config.options) if config.user_model else None
        )
        self.matcher = make_matcher(config.user_matcher, model=self.user_model)
        self._shapes: dict[str, Shape] | None = None
        self._shapes_lock = threading.Lock()
        memories = MemoryStore(config.memory_dir) if config.memory_dir else None
        env = HistoryEnv(bench, self.model, top_k=config.top_k, memories=memories)
        self.history = {name: method(env) for name, method in methods.items()}
        self.prices = load_prices(config.prices)

    def shapes(self) -> dict[str, Shape]:
        """What the reference policies read off each task (spied once, on first use)."""
        with self._shapes_lock:
            if self._shapes is None:
                self._shapes, _ = spy_tasks(self.bench.task_pool(), self.pool)
            return self._shapes

    def play(self, session: Session, cond: str, epoch: int) -> SessionRun:
        start = time.perf_counter()
        transcript = SessionResult(turns=[Turn(role="user", text=session.request)])
        try:
            context = self.history[cond].context(session)  # methods may call the model too
        except InfraError as exc:
            return self._record(
                session,
                cond,
                epoch,
                start,
                HistoryContext(),
                transcript,
                None,
                "infra_error",
                f"history ({cond}): {exc}",
            )
        if self.policy is not None:
            assistant = self.policy(
                PolicyInput(session, self.shapes()[session.task_id], context, epoch)
            )
        else:
            assistant = ModelAssistant(
                self.model,
                system=system_prompt(context, self.config.budget),
                stop_after_code=is_local(self.config.model),
            )
        user = SimulatedUser(
            session,
            pool=self.pool,
            expression_model=self.user_model,
            matcher=self.matcher,
            verdicts=self.verdicts,
        )
        status, error = "completed", ""
        try:
            transcript = run_session(
                session, assistant, user, budget=self.config.budget, into=transcript
            )
        except InfraError as exc:
            status, error = "infra_error", str(exc)
        return self._record(
            session, cond, epoch, start, context, transcript, assistant, status, error
        )

    def _record(
        self, session, cond, epoch, start, context, transcript, assistant, status, error
    ) -> SessionRun:
        completions = assistant.completions if assistant is not None else ()
        tokens_in = sum(c.input_tokens for c in completions)
        tokens_out = sum(c.output_tokens for c in completions)
        mine = [t for t in transcript.turns if t.role == "assistant"]
        asks = transcript.asked  # what the simulated user read as asking, turn by turn
        return SessionRun(
            **identity(session, cond, epoch, self.config.model),
            status=status,
            error=error,
            solved_turn=transcript.solved_turn,
            turns=tuple(transcript.turns),
            asks=sum(asks),
            submissions=sum(t.verdict is not None for t in mine),
            needless_asks=needless_asks(session, transcript.turns, context.sessions, context.text),
            first_move=first_move(transcript.turns, asks),
            user_questions=transcript.user_questions,
            truncated_replies=sum(c.truncated for c in completions),
            unanswered=tuple(transcript.unanswered),
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost_usd=cost(self.config.model, tokens_in, tokens_out, self.prices),
            history_tokens=context.tokens,
            history_info=context.info,
            duration_s=round(time.perf_counter() - start, 3),
        )
