"""The blank control (the paper's upper bound): each original task with its full
specification, no user, test feedback, played by a model into a run directory of its own."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from capabench.executors import bug_last, make_executor
from capabench.models.spec import is_policy
from capabench.player import RunConfig
from capabench.records import BlankRun
from capabench.store import RunStore


@dataclass
class BlankSpec:
    """Blank-control workers: the model and a judge pool (here: the caller's)."""

    config: RunConfig
    pool: object = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "pool": None}  # a worker elsewhere builds its own

    def build(self, threads: int, cpus: float) -> BlankWorker:
        from capabench.judge.sandbox import SandboxPool
        from capabench.models import make_model

        options = replace(self.config.options, concurrency=threads)
        pool = self.pool or SandboxPool(2)
        return BlankWorker(make_model(self.config.model, options), pool, own=self.pool is None)


class BlankWorker:
    def __init__(self, model, pool, *, own: bool) -> None:
        from capabench.tasks import load_humaneval

        self.model, self.pool, self.own = model, pool, own
        self.tasks = {t.id: t for t in load_humaneval()}

    def play(self, task_id: str) -> BlankRun:
        from capabench.simulate.blank import play_blank

        return play_blank(self.tasks[task_id], self.model, self.pool)

    def close(self) -> None:
        if self.own:
            self.pool.close()


def play_blank_control(config: RunConfig, run_dir: Path, pool, progress=None) -> list[BlankRun]:
    from capabench.tasks import load_humaneval

    if is_policy(config.model):
        raise ValueError(
            "the blank control needs a model (reference policies play CAPA sessions only)"
        )
    tasks = load_humaneval()
    if config.limit:
        step = len(tasks) / config.limit
        tasks = [tasks[int(i * step)] for i in range(min(config.limit, len(tasks)))]
    # A directory of its own: these are tasks, not sessions of a benchmark.
    store = RunStore(run_dir / "blank-control", record=BlankRun)
    store.open(
        {
            "model": config.model,
            "conditions": ["blank-control"],
            "seed": config.seed,
            "user_model": None,
            "budget": config.budget,
            "benchmark_hash": "humaneval",
        }
    )
    done = {r.key for r in store.results() if r.status == "completed"}
    todo = [t.id for t in tasks if f"{t.id}|0" not in done]
    executor = make_executor(
        config.executor, processes=config.processes, address=config.ray_address
    )
    try:
        stream = executor.map(BlankSpec(config, pool), todo, in_flight=config.concurrency)
        for outcome in bug_last(stream, "a task"):
            if outcome.result is not None:  # a lost one is played on the next run
                store.append(outcome.result)
                if progress:
                    progress(outcome.result)
    finally:
        store.close()
    wanted = {t.id for t in tasks}
    return [r for r in store.results() if r.task_id in wanted]
