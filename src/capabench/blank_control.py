"""The blank control (the paper's upper bound): each original task with its full
specification, no user, test feedback, played by a model into a run directory of its own."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from capabench.batch import Arm, BatchSpec, pending, play_batch
from capabench.executors import make_executor
from capabench.models.spec import is_policy
from capabench.player import RunConfig
from capabench.records import BlankRun
from capabench.store import RunStore


@dataclass
class BlankRecipe:
    """Blank-control workers: the model and a judge pool of their own."""

    config: RunConfig

    def build(self, threads: int, cpus: float) -> BlankWorker:
        from capabench.judge.sandbox import SandboxPool
        from capabench.models import make_model

        options = replace(self.config.options, concurrency=threads)
        return BlankWorker(make_model(self.config.model, options), SandboxPool(2), own=True)


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
    """Play the blank control into `run_dir`/blank-control (the caller's judge `pool` in this
    process, when given); resumes what finished."""
    from capabench.models import make_model
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

    def lost(task_id: str, why: str) -> BlankRun:  # played again on the next run
        return BlankRun(
            key=f"{task_id}|0", task_id=task_id, model=config.model, status="infra_error", error=why
        )

    arm = Arm(lambda r: r.key, lambda r: r.status == "completed", lost, store.append)
    executor = make_executor(
        config.executor, processes=config.processes, address=config.ray_address
    )
    here = None
    if pool is not None:
        options = replace(config.options, concurrency=config.concurrency)
        here = BlankWorker(make_model(config.model, options), pool, own=False)
    try:
        jobs = pending([t.id for t in tasks], lambda task_id: f"{task_id}|0", done)
        spec = BatchSpec(BlankRecipe(config), here)
        for _, result in play_batch(
            executor, spec, jobs, arm, done, in_flight=config.concurrency, what="a task"
        ):
            if progress:
                progress(result)
    finally:
        store.close()
    wanted = {t.id for t in tasks}
    return [r for r in store.results() if r.task_id in wanted]
