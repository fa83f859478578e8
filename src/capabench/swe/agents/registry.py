"""Agent runners by model prefix, as model providers are: a runner is one module of this
package (or of an installed package's `capabench.agents` entry point) whose class is
registered for the model slugs it plays (`@register("gpt-", "codex-")`). The longest
matching prefix wins; the built-in agent, registered under "", plays every other slug."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from capabench.models import ModelOptions
from capabench.registry import Registry
from capabench.swe.agents.recorder import AgentRunner
from capabench.swe.asks.verdict import AskClassifier
from capabench.swe.swe_records import CLI_TURNS, Budget


@dataclass(frozen=True)
class RunnerOptions:
    """What a run asks of its runner. Every runner reads the common fields; the others are
    read only by the runners whose registration names them (`takes`)."""

    model: ModelOptions = field(default_factory=ModelOptions)  # endpoint, key, reply size, cache
    turns: int | None = None  # the turn budget in model replies; None: the runner's default
    wall_s: float = 3600.0  # the wall-time budget
    sandbox: bool = True  # inside bubblewrap, which must work
    # The built-in agent: each action a JSON object under a schema (None: for local models).
    structured: bool | None = None
    system_prompt: str = "preset"  # the Claude arm: Claude Code's own (preset) or bare
    ask_judge: AskClassifier | None = None  # the Codex arm: an LLM judge of final messages,
    judge_decides: bool = False  # recorded beside the classifier's verdict, or deciding


Build = Callable[[str, RunnerOptions, Budget], AgentRunner]


@dataclass(frozen=True)
class Registration:
    name: str  # the runner's, recorded with every run
    build: Build  # (model slug, options, budget) -> the runner
    turns: int  # its default turn budget
    preflight_turns: int  # ... for the preflight's canary
    takes: tuple[str, ...]  # the RunnerOptions fields only it reads


REGISTRY: Registry[Registration] = Registry(
    "agent runner prefix", package="capabench.swe.agents", group="capabench.agents"
)


def register(
    *prefixes: str,
    turns: int = CLI_TURNS,
    preflight_turns: int | None = None,
    takes: tuple[str, ...] = (),
):
    """Register a runner class for model slugs starting with one of `prefixes` ("" for any).
    The class names itself (`name`) and is built by `from_options(model, options, budget)`."""

    def wrap(cls):
        entry = Registration(cls.name, cls.from_options, turns, preflight_turns or turns, takes)
        for prefix in prefixes:
            REGISTRY.add(prefix, entry, origin=cls.__module__)
        return cls

    return wrap


def registration(model: str) -> Registration:
    """The runner that plays `model`: the one registered under its longest prefix."""
    matches = [p for p in REGISTRY if model.startswith(p)]
    if not matches:
        raise ValueError(f"no agent runner plays {model!r}")
    return REGISTRY[max(matches, key=len)]


def make_runner(
    model: str, options: RunnerOptions | None = None, *, preflight: bool = False
) -> AgentRunner:
    """The runner for `model`, built with `options`; its turn budget is `options.turns`,
    else its registered default (the canary's, for a preflight)."""
    options = options or RunnerOptions()
    entry = registration(model)
    turns = options.turns or (entry.preflight_turns if preflight else entry.turns)
    return entry.build(model, options, Budget(turns=turns, wall_s=options.wall_s))
