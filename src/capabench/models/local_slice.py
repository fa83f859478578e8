"""How much of CAPA a local model can play in a time budget on this machine: a short
calibration (load, one prompt, one generation) measures its speed, and the slice the main
job plays (sessions per condition, tokens per reply) is the largest that fits.

    python -m capabench.models.local_slice --budget-s 240 [--model local[/file.gguf]]

prints `SESSIONS MAX_TOKENS` on stdout and what it measured and chose on stderr."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from capabench.records import TURN_BUDGET

# What a played session costs, in tokens, as the embedded model plays the default benchmark:
# a request (and for same-user a history) evaluated once, then per turn the reply and the
# user's answer evaluated, the reply generated (about half the cap: a reply ends with its
# first code block). Judge and simulated user: about a third of a second per turn.
REQUEST_TOKENS = 400
HISTORY_TOKENS = 2600
ANSWER_TOKENS = 80
REPLY_SHARE = 0.5
OTHER_S_PER_TURN = 0.35
CHOICES = [(2, 512), (2, 384), (1, 512), (1, 384), (1, 256)]  # preferred first


@dataclass(frozen=True)
class Speed:
    load_s: float
    prompt_tok_s: float
    generate_tok_s: float


@dataclass(frozen=True)
class Slice:
    sessions: int
    max_tokens: int
    estimate_s: float
    fits: bool


def measure(model_spec: str = "local") -> Speed:
    from capabench.models import Message
    from capabench.models.local import LocalModel, embedded_gguf

    path = embedded_gguf() if model_spec == "local" else Path(model_spec.split("/", 1)[1])
    started = time.perf_counter()
    model = LocalModel(path, max_tokens=64)
    load = time.perf_counter() - started
    text = "def add(a, b):\n    return a + b\n" * 20
    model.complete([Message(role="user", content="Explain this code in one sentence:\n" + text)])
    t = model.last
    return Speed(
        load,
        t.prompt_tokens / max(t.prompt_s, 1e-6),
        max(t.generated_tokens, 1) / max(t.generate_s, 1e-6),
    )


def session_s(speed: Speed, max_tokens: int, history: bool) -> float:
    """A pessimistic session: every turn of the budget played."""
    reply = max_tokens * REPLY_SHARE
    first = (REQUEST_TOKENS + (HISTORY_TOKENS if history else 0)) / speed.prompt_tok_s
    per_turn = reply / speed.generate_tok_s + (reply + ANSWER_TOKENS) / speed.prompt_tok_s
    return first + TURN_BUDGET * (per_turn + OTHER_S_PER_TURN)


def choose(speed: Speed, budget_s: float) -> Slice:
    """The first of CHOICES whose none + same-user sessions fit the budget (else the last)."""
    for sessions, tokens in CHOICES:
        estimate = speed.load_s + sessions * (
            session_s(speed, tokens, False) + session_s(speed, tokens, True)
        )
        if estimate <= budget_s:
            return Slice(sessions, tokens, estimate, True)
    return Slice(sessions, tokens, estimate, False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget-s", type=float, required=True, help="seconds for the slice")
    ap.add_argument("--model", default="local")
    args = ap.parse_args(argv)
    speed = measure(args.model)
    chosen = choose(speed, args.budget_s)
    print(
        f"calibration: load {speed.load_s:.1f} s, prompt {speed.prompt_tok_s:.0f} tok/s, "
        f"generation {speed.generate_tok_s:.1f} tok/s; slice: {chosen.sessions} session(s) "
        f"per condition, {chosen.max_tokens} tokens per reply, estimated at most "
        f"{chosen.estimate_s:.0f} s of a {args.budget_s:.0f} s budget"
        + ("" if chosen.fits else " (the smallest slice; it may run over)"),
        file=sys.stderr,
    )
    print(chosen.sessions, chosen.max_tokens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
