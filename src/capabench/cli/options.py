"""Options several commands take, defined once. `run` and `study` share the options of how
sessions are played (which, against what endpoint, with which user): `@play_options` adds them
to a command, which receives them packed in one `PlayOptions`."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated

import typer

MODEL_HELP = "openai/<m>, anthropic/<m>, local[/<gguf>], baseline/<policy>"

BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="an OpenAI-compatible server")]
ApiKeyOpt = Annotated[
    str | None, typer.Option("--api-key", help="default: the provider's environment variable")
]
MaxTokensOpt = Annotated[int, typer.Option("--max-tokens", min=16, help="per model reply")]
ContextOpt = Annotated[
    int | None,
    typer.Option("--context", min=512, help="a local model's context window (default 8192)"),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="don't reuse cached responses")]


def _executor(name: str) -> str:
    from capabench.executors import EXECUTORS

    if name not in EXECUTORS:
        raise typer.BadParameter(f"{name!r} is not one of {', '.join(EXECUTORS)}")
    return name


ExecutorOpt = Annotated[
    str,
    typer.Option(
        "--executor",
        callback=_executor,
        help="where sessions are played: local (this machine) or ray (a Ray cluster; the ray extra)",
    ),
]


def check_executor(executor: str, ray_address: str | None, processes: int = 1) -> None:
    """Executor options that can't go together: one clear line, exit 2."""
    from capabench.cli.errors import fail

    if executor != "ray" and ray_address:
        raise fail("--ray-address goes with --executor ray")
    if executor == "ray" and processes > 1:
        raise fail("--processes is for --executor local (Ray places the workers)")


RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="an existing Ray cluster (auto, or HOST:PORT); default: start a local instance for the run",
    ),
]
BenchmarkOpt = Annotated[
    Path | None,
    typer.Option(
        "--benchmark",
        help="a benchmark directory made by `capabench build` (default: the seed's default benchmark)",
    ),
]


@dataclass(frozen=True)
class PlayOptions:
    """How a command plays sessions (`run`, `study`)."""

    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="the first N sessions of a fixed order that takes every user once before any twice",
        ),
    ] = None
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="model calls in flight per endpoint")
    ] = 4
    processes: Annotated[
        int,
        typer.Option(
            "--processes",
            min=1,
            help="worker processes sharing the concurrency (many calls at once on a small machine)",
        ),
    ] = 1
    executor: ExecutorOpt = "local"
    ray_address: RayAddressOpt = None
    user_model: Annotated[
        str | None, typer.Option("--user-model", help="an LLM to phrase the user's answers")
    ] = None
    user_matcher: Annotated[
        str,
        typer.Option(
            "--user-matcher",
            help="how the simulated user reads questions: learned (default), rules, semantic (embeddings extra), llm (needs --user-model)",
        ),
    ] = "learned"  # capabench.simulate.intent.DEFAULT_MATCHER (kept out of the CLI's import)
    base_url: BaseUrlOpt = None
    api_key: ApiKeyOpt = None
    temperature: Annotated[
        float,
        typer.Option("--temperature", min=0.0, max=2.0, help="sampling temperature (0: greedy)"),
    ] = 0.0
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="per assistant turn")] = (
        2048
    )
    context: ContextOpt = None
    no_cache: NoCacheOpt = False
    seed: Annotated[int, typer.Option("--seed", help="benchmark seed")] = 0
    benchmark: BenchmarkOpt = None
    prices: Annotated[
        Path | None,
        typer.Option("--prices", help='JSON {"model prefix": [input, output]} USD per 1M tokens'),
    ] = None
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, help="sessions a retrieval condition shows")
    ] = 2

    def run_config(self, model: str, conditions: list[str], *, epochs: int = 1):
        """The runner's configuration for one model."""
        from capabench.models import ModelOptions
        from capabench.paths import cache_dir
        from capabench.runner import RunConfig

        check_executor(self.executor, self.ray_address, self.processes)
        options = ModelOptions(
            base_url=self.base_url,
            api_key=self.api_key,
            temperature=self.temperature,
            concurrency=self.concurrency,
            max_tokens=self.max_tokens,
            context=self.context,
            cache=None if self.no_cache else str(cache_dir() / "responses.sqlite"),
        )
        return RunConfig(
            model=model,
            conditions=conditions,
            limit=self.limit,
            epochs=epochs,
            concurrency=self.concurrency,
            seed=self.seed,
            user_model=self.user_model,
            user_matcher=self.user_matcher,
            options=options,
            top_k=self.top_k,
            prices=str(self.prices) if self.prices else None,
            processes=self.processes,
            executor=self.executor,
            ray_address=self.ray_address,
        )


def play_options(command):
    """Give `command` the PlayOptions fields as options; it receives them as `play=`."""
    hints = inspect.get_annotations(PlayOptions, eval_str=True)
    shared = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name]
        )
        for f in fields(PlayOptions)
    ]
    own = inspect.signature(command, eval_str=True)
    params = [p for p in own.parameters.values() if p.name != "play"] + shared

    @functools.wraps(command)
    def wrapper(**kwargs):
        play = PlayOptions(**{f.name: kwargs.pop(f.name) for f in fields(PlayOptions)})
        return command(play=play, **kwargs)

    del wrapper.__wrapped__  # Typer reads the signature below, not the command's own
    wrapper.__signature__ = own.replace(parameters=params)
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper
