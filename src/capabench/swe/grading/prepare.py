"""`capabench swe prepare`: every instance's repository (with its base commit) and its
environment per (repository, version), built one at a time and reused. An instance whose
repository or environment can't be had is listed with the reason; it is never graded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from capabench.swe.data.repos import ensure_repo
from capabench.swe.grading.envs import EnvProblem, ensure_env, env_dir, env_key
from capabench.swe.grading.specs import spec_for
from capabench.swe.swe_records import Instance


class Prepared(BaseModel):
    instance_id: str
    repo: str
    version: str = ""
    status: Literal["ready", "failed"]
    env: str = ""  # the environment's key; "" where none is needed (capabench's repositories)
    reason: str = ""
    reused: bool = False
    build_s: float = 0.0
    size_bytes: int = 0
    venv_bytes: int = 0


def prepare(
    instances: list[Instance],
    repos: Path | None = None,
    *,
    rebuild: bool = False,
    log: Callable[[str], None] = print,
) -> list[Prepared]:
    out: list[Prepared] = []
    done: dict[str, Prepared] = {}  # environment key -> how its build went
    for n, instance in enumerate(instances, 1):
        log(f"[{n}/{len(instances)}] {instance.instance_id}")
        base = {"instance_id": instance.instance_id, "repo": instance.repo}
        try:
            repo = ensure_repo(instance, repos, log=log)
            spec = spec_for(instance)
        except (FileNotFoundError, KeyError) as exc:
            out.append(Prepared(status="failed", reason=str(exc).strip("'\""), **base))
            log(f"  not ready: {out[-1].reason}")
            continue
        if spec is None:  # capabench's own repositories: graded with capabench's pytest
            out.append(Prepared(status="ready", **base))
            continue
        base["version"] = spec.version
        key = env_key(spec, repo, instance)
        if key in done:
            out.append(done[key].model_copy(update=base | {"reused": True}))
            continue
        log(f"  environment {key} (Python {spec.python}) in {env_dir(key)}")
        try:
            record, reused = ensure_env(spec, instance, repo, rebuild=rebuild, log=log)
        except EnvProblem as exc:  # pragma: no cover - build_env records its own failures
            record, reused = None, False
            reason = str(exc)
        if record is not None:
            reason = record.reason
        result = Prepared(
            status="ready" if record is not None and record.status == "built" else "failed",
            env=key,
            reason=reason,
            reused=reused,
            build_s=record.build_s if record else 0.0,
            size_bytes=record.size_bytes if record else 0,
            venv_bytes=record.venv_bytes if record else 0,
            **base,
        )
        log(
            f"  {'reused' if reused else 'built'}: {result.status}"
            + (f" ({result.reason})" if result.reason else "")
            + (
                f", {result.venv_bytes / 2**20:.0f} MiB venv, {result.size_bytes / 2**20:.0f} MiB in all"
                if result.size_bytes
                else ""
            )
        )
        done[key] = result
        out.append(result)
    return out
