"""How much of CAPA a local model can play in a time budget on this machine: a short
calibration (load, then a short and a long prompt, each generating a few tokens) measures
its speed, and the slice the main job plays (sessions per condition, tokens per reply) is
the largest that fits.

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
# user's answer evaluated, the reply generated (a share of the cap: a reply ends with its
# first code block; docs/main-job.md has the shares played). Judge and simulated user: about
# a third of a second per turn.
REQUEST_TOKENS = 400
HISTORY_TOKENS = 2600
ANSWER_TOKENS = 80
REPLY_SHARE = 0.6
OTHER_S_PER_TURN = 0.35
CHOICES = [(2, 512), (2, 384), (1, 512), (1, 384), (1, 256)]  # preferred first
# The calibration's two prompts: llama.cpp evaluates and generates more slowly as its context
# fills (each token attends to all before it), and a same-user session plays at a few thousand.
_CODE = "def add(a, b):\n    return a + b\n"
_SHORT_LINES, _LONG_LINES = 20, 240
_CALIBRATION_TOKENS = 48


@dataclass(frozen=True)
class Speed:
    """Tokens per second measured at a short context and at a long one (`long_context`
    tokens; 0: not measured, the short speeds hold at every length)."""

    load_s: float
    prompt_tok_s: float
    generate_tok_s: float
    short_context: int = 0
    long_context: int = 0
    long_prompt_tok_s: float = 0.0
    long_generate_tok_s: float = 0.0

    def _per_token(self, short_rate: float, long_rate: float, context: float) -> float:
        """Seconds per token with `context` tokens before it: linear in the context through
        the two measurements (never faster as it grows)."""
        short = 1.0 / short_rate
        if not self.long_context or self.long_context <= self.short_context or not long_rate:
            return short
        slope = max(0.0, (1.0 / long_rate - short) / (self.long_context - self.short_context))
        return short + slope * max(0.0, context - self.short_context)

    def prompt_s(self, tokens: float, context: float) -> float:
        """Evaluating `tokens` new tokens after `context` already evaluated."""
        middle = context + tokens / 2
        return tokens * self._per_token(self.prompt_tok_s, self.long_prompt_tok_s, middle)

    def generate_s(self, tokens: float, context: float) -> float:
        middle = context + tokens / 2
        return tokens * self._per_token(self.generate_tok_s, self.long_generate_tok_s, middle)


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
    if not path.is_file():
        raise SystemExit(f"local_slice: no model file {path}")
    started = time.perf_counter()
    model = LocalModel(path, max_tokens=_CALIBRATION_TOKENS)
    load = time.perf_counter() - started
    rates = []
    for lines in (_SHORT_LINES, _LONG_LINES):
        # a reply that doesn't end early: generation is timed over the whole cap
        ask = "Repeat this code twice, then count from 1 to 100 in words:\n"
        model.complete([Message(role="user", content=ask + _CODE * lines)])
        t = model.last
        rates.append(
            (
                t.prompt_tokens,
                t.prompt_tokens / max(t.prompt_s, 1e-6),
                max(t.generated_tokens, 1) / max(t.generate_s, 1e-6),
            )
        )
    (short, short_prompt, short_gen), (long, long_prompt, long_gen) = rates
    return Speed(load, short_prompt, short_gen, short, long, long_prompt, long_gen)


def session_s(speed: Speed, max_tokens: int, history: bool) -> float:
    """A long session: every turn of the budget played, at the context it has reached."""
    reply = max_tokens * REPLY_SHARE
    new = REQUEST_TOKENS + (HISTORY_TOKENS if history else 0)
    context, total = 0.0, 0.0
    for _ in range(TURN_BUDGET):
        total += speed.prompt_s(new, context) + speed.generate_s(reply, context + new)
        total += OTHER_S_PER_TURN
        context += new + reply
        new = ANSWER_TOKENS  # the reply is in llama.cpp's state already; the answer is new
    return total


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
        f"calibration: load {speed.load_s:.1f} s; at {speed.short_context} tokens of context "
        f"prompt {speed.prompt_tok_s:.0f} tok/s, generation {speed.generate_tok_s:.1f} tok/s; "
        f"at {speed.long_context}: {speed.long_prompt_tok_s:.0f} and "
        f"{speed.long_generate_tok_s:.1f} tok/s; slice: {chosen.sessions} session(s) "
        f"per condition, {chosen.max_tokens} tokens per reply, estimated at most "
        f"{chosen.estimate_s:.0f} s of a {args.budget_s:.0f} s budget"
        + ("" if chosen.fits else " (the smallest slice; it may run over)"),
        file=sys.stderr,
    )
    print(chosen.sessions, chosen.max_tokens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
