"""What a CAPA run is: the run-manifest record (a run directory's manifest.json) and the key
of each of its results. The fields that change a result carry the flag that sets each: a
resumed run must match them (RunStore.check names field and flag when it doesn't)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


def _identity(flag: str):
    """A field that changes a result, set by `flag` (what an error about it names)."""
    return Field(json_schema_extra={"flag": flag})


class RunManifest(BaseModel):
    """Written sorted as JSON; a resumed run's conditions, limit and epochs may grow, the
    identity fields may not, the rest describes the run (and is rewritten by a resume)."""

    model_config = ConfigDict(extra="allow", frozen=True)  # an old manifest's own fields stay

    # The identity fields, in the order a mismatch is reported (a new --seed is a new
    # benchmark first).
    model: str = _identity("--model")
    benchmark_hash: str = _identity("--benchmark/--seed")
    seed: int = _identity("--seed")
    user_model: str | None = _identity("--user-model")
    user_matcher: str = _identity("--user-matcher")
    budget: int = _identity("the turn budget")
    temperature: float = _identity("--temperature")
    max_tokens: int = _identity("--max-tokens")
    top_k: int = _identity("--top-k")
    context: int | None = _identity("--context")
    base_url: str | None = _identity("--base-url")
    # What may grow on resume.
    conditions: list[str]
    epochs: int
    limit: int | None
    # What describes the run.
    decoding: str
    benchmark_seed: int
    capabench_version: str
    python: str
    judge_isolation: str
    prices: str | None

    @classmethod
    def identity(cls) -> dict[str, str]:
        """The fields that change a result, each with the flag that sets it."""
        return {
            name: info.json_schema_extra["flag"]
            for name, info in cls.model_fields.items()
            if isinstance(info.json_schema_extra, dict) and "flag" in info.json_schema_extra
        }

    @staticmethod
    def result_key(session_id: str, condition: str, epoch: int) -> str:
        """The key of one job's result (SessionRun.key): what resume and dedup go by."""
        return f"{session_id}|{condition}|{epoch}"
