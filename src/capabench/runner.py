"""The batch layer: play held-out sessions under conditions with a model or a reference
policy, in parallel, appending each finished session to the run directory."""

from __future__ import annotations

import math
import platform
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import capabench
from capabench.batch import Arm, BatchSpec, pending, play_batch
from capabench.benchmark import Benchmark
from capabench.executors import make_executor
from capabench.history import condition
from capabench.judge.sandbox import SandboxPool, bwrap_available, default_pool
from capabench.models import is_local
from capabench.player import Player, RunConfig, infra_result, select_sessions
from capabench.records import SessionRun
from capabench.simulate.intent import check_matcher
from capabench.store import RunStore
from capabench.store.manifest import RunManifest


class Runner:
    """Plays every pending job of a run directory and appends each result as it finishes.

    Where the sessions are played is the executor's business (threads here; with `processes`
    > 1 worker processes, each with its own model client, judge pool and share of the
    concurrency; with `executor="ray"` actors over a Ray cluster): this process alone stores,
    so resume, deduplication and group commit are the same for all of them."""

    def __init__(
        self,
        config: RunConfig,
        bench: Benchmark,
        run_dir: str | Path,
        *,
        pool: SandboxPool | None = None,
    ) -> None:
        if config.split != "heldout" and config.conditions != ["none"]:
            raise ValueError("the history split is played without history only (--conditions none)")
        if config.processes < 1:
            raise ValueError("processes must be at least 1")
        for name in config.conditions:
            condition(name)  # a typo fails before any model loads
        check_matcher(config.user_matcher, has_model=bool(config.user_model))
        if config.memory_dir is None:  # built memories live with the run, for its reruns
            config = replace(config, memory_dir=str(Path(run_dir) / "memories"))
        self.config = config
        self.bench = bench
        self.store = RunStore(run_dir)
        # Workers elsewhere bring their own players; this one would load the model for nothing.
        here = config.executor == "local" and config.processes == 1
        self.player = Player(config, bench, pool or default_pool()) if here else None
        self.nodes: Counter[str] = Counter()  # results per Ray node ("" locally)

    def manifest(self) -> RunManifest:
        c = self.config
        isolation = (
            self.player.pool.isolation
            if self.player
            else ("bwrap" if bwrap_available()[0] else "process")
        )
        return RunManifest(
            model=c.model,
            conditions=c.conditions,
            epochs=c.epochs,
            limit=c.limit,
            seed=c.seed,
            decoding="a reply ends with its first code block" if is_local(c.model) else "free text",
            user_model=c.user_model,
            user_matcher=c.user_matcher,
            budget=c.budget,
            benchmark_hash=self.bench.manifest.content_hash,
            benchmark_seed=self.bench.manifest.seed,
            capabench_version=capabench.__version__,
            python=platform.python_version(),
            judge_isolation=isolation,
            base_url=c.options.base_url,
            prices=c.prices,
            top_k=c.top_k,
            temperature=c.options.temperature,
            max_tokens=c.options.max_tokens,
            context=c.options.context,
        )

    def jobs(self, done: set[str] | None = None) -> list[tuple[str, str, int]]:
        """The pending jobs (session id, condition, epoch), in the order they are played."""
        sessions = select_sessions(self.bench, self.config.limit, self.config.split)
        every = [
            (s.id, cond, epoch)
            for epoch in range(self.config.epochs)
            for cond in self.config.conditions
            for s in sessions
        ]
        return pending(every, _job_key, self.store.done() if done is None else done)

    def run(self, progress: Callable[[SessionRun], None] | None = None) -> list[SessionRun]:
        """Play every pending job; returns all results of the run directory, old and new."""
        manifest = self.manifest()
        self.store.open(manifest)
        results = {r.key: r for r in self.store.results()}
        done = self.store.done(results.values())
        sessions = {s.id: s for s in self.bench.sessions}
        c = self.config

        def lost(job: tuple[str, str, int], why: str) -> SessionRun:
            sid, cond, epoch = job  # a worker or node kept dying under it: played on resume
            return infra_result(sessions[sid], cond, epoch, c.model, why)

        def store(result: SessionRun) -> None:
            self.store.append(result)
            results[result.key] = result

        arm = Arm(lambda r: r.key, lambda r: r.status == "completed", lost, store)
        executor = make_executor(c.executor, processes=c.processes, address=c.ray_address)
        recipe = SessionRecipe(c, self.bench, manifest.judge_isolation)
        here = SessionPlayer(self.player, self.bench) if self.player else None
        try:
            for outcome, result in play_batch(
                executor,
                BatchSpec(recipe, here),
                self.jobs(done),
                arm,
                done,
                in_flight=sessions_in_flight(c.concurrency, c.model),
            ):
                self.nodes[outcome.node] += outcome.result is not None
                if progress:
                    progress(result)
        finally:
            self.store.close()
        return list(results.values())


def _job_key(job: tuple[str, str, int]) -> str:
    return RunManifest.result_key(*job)


def sessions_in_flight(calls: int, model: str = "") -> int:
    """Sessions played at once for `calls` model calls in flight (--concurrency): a session
    that is being judged, or between calls, holds no call slot, so a quarter more sessions
    keep the endpoint's slots busy; each worker's client still opens at most its share of
    `calls` (models.policy's per-endpoint limit). A local model keeps one dialogue's state
    (its KV cache) per instance: sessions taking turns on it would each evaluate their
    whole dialogue again at every turn, so it plays exactly `calls` at once."""
    if is_local(model):
        return calls
    return calls + max(1, calls // 4)


@dataclass
class SessionRecipe:
    """How a worker elsewhere (a process, a Ray actor) builds its Player: with its own judge
    pool and its share of the concurrency."""

    config: RunConfig
    bench: Benchmark
    isolation: str  # the driver's judge isolation: a worker elsewhere must offer the same

    def build(self, threads: int, cpus: float) -> SessionPlayer:
        judges = max(2, math.ceil(cpus) + 1)  # its share of the host's cores, + 1
        calls = self.config.concurrency
        config = replace(
            self.config,
            processes=1,
            concurrency=threads,
            # its share of the calls: never more than --concurrency over all workers
            options=replace(
                self.config.options,
                concurrency=max(1, threads * calls // sessions_in_flight(calls, self.config.model)),
            ),
        )
        if self.isolation == "bwrap" and not bwrap_available()[0]:
            raise RuntimeError(
                f"this host has no working bubblewrap ({bwrap_available()[1]}); the driver "
                "judges inside it, and every worker must too (apt install bubblewrap)"
            )
        return SessionPlayer(Player(config, self.bench, SandboxPool(judges)), self.bench)


class SessionPlayer:
    """A Player that plays jobs by id (what travels is ids, not sessions)."""

    def __init__(self, player: Player, bench: Benchmark) -> None:
        self.player = player
        self.sessions = {s.id: s for s in bench.sessions}

    def play(self, job: tuple[str, str, int]) -> SessionRun:
        session_id, cond, epoch = job
        return self.player.play(self.sessions[session_id], cond, epoch)

    def close(self) -> None:
        self.player.pool.close()
