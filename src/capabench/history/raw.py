"""The paper's three basic conditions: no history, the user's own five resolved sessions,
and five resolved sessions of other users of similar total length (the identity control);
and, for the learning curve, the first k of the user's own (`same-user-k0`..`same-user-k5`)."""

from __future__ import annotations

import random

from capabench.history.base import (
    HistoryContext,
    HistoryEnv,
    approx_tokens,
    register_function,
    render_history,
    render_session,
)


@register_function("none")
def no_history(session, env: HistoryEnv) -> HistoryContext:
    return HistoryContext()


@register_function("same-user")
def same_user(session, env: HistoryEnv) -> HistoryContext:
    return render_history(env.history_of(session))


_lengths: dict[str, int] = {}


def _length(session) -> int:
    """Approximate tokens of a rendered history session (memoized: sessions are immutable)."""
    key = f"{session.id}:{hash(session.trace)}"
    if key not in _lengths:
        _lengths[key] = approx_tokens(render_session(session, 1))
    return _lengths[key]


@register_function("shuffled")
def shuffled(session, env: HistoryEnv) -> HistoryContext:
    """Five resolved sessions of other users who hold none of this session's conventions
    (a control must not carry the answer), the draw closest to the user's own history in
    length. `info` reports how many drawn sessions still state one of them (0 by design)."""
    own = env.history_of(session)
    target = sum(_length(s) for s in own)
    held = {(slot.family, slot.alternative) for slot in session.slots}
    others = [
        s
        for s in env.bench.sessions
        if s.split == "history"
        and s.user_id != session.user_id
        and not held & {(slot.family, slot.alternative) for slot in s.slots}
    ]
    rng = random.Random(f"shuffled:{session.id}")
    best, best_gap = None, None
    for _ in range(32):  # the draw whose total length is closest to the user's own history
        draw = rng.sample(others, min(len(own), len(others)))
        gap = abs(sum(_length(s) for s in draw) - target)
        if best_gap is None or gap < best_gap:
            best, best_gap = draw, gap
    drawn = best or []
    statements = [slot.statement for slot in session.slots]
    overlap = sum(
        any(st in t.text for t in s.trace if t.role == "user" for st in statements) for s in drawn
    )
    return render_history(drawn, users=sorted({s.user_id for s in drawn}), overlap=overlap)


HISTORY_SIZES = range(6)  # the learning curve's k: 0 (no history) to all five resolved sessions


def _first(k: int):
    def first_k(session, env: HistoryEnv) -> HistoryContext:
        """The user's first k resolved sessions, in order (k = 5: same-user)."""
        return render_history(env.history_of(session)[:k], first=k)

    return first_k


for _k in HISTORY_SIZES:
    register_function(f"same-user-k{_k}")(_first(_k))
