"""Same-user history gating (the CAPA paper's method). A gate reviews the user's resolved
sessions for consistent ambiguity-resolution evidence. When it suffices, the context is
that evidence plus the most informative earlier session (instead of the whole history);
otherwise it is clarification guidance naming what the history leaves unresolved.

`gated`: a deterministic evidence gate. It reads what the user said in earlier sessions
against the benchmark's public convention catalog (never the held-out session's hidden
slots), so it is exact and free; it needs no LLM, so reference policies can use it.
`gated-llm`: the paper's gate, the evaluated model itself reviewing the history.
"""

from __future__ import annotations

from capabench.conventions import REGISTRY, conventions_in, cued
from capabench.conventions.evidence import statement
from capabench.history.base import (
    HistoryContext,
    HistoryEnv,
    approx_tokens,
    register,
    render_history,
    render_session,
)
from capabench.models.base import JSON_OBJECT, Message
from capabench.models.json_answer import json_answer
from capabench.records import Session

SUFFICIENT = (
    "Review of this user's earlier sessions: they consistently settle these points.\n"
    "{evidence}\nThe most informative earlier session follows. Apply these conventions "
    "unless the new request says otherwise; you don't need to ask about them again."
)
INSUFFICIENT = (
    "Review of this user's earlier sessions: they don't settle everything this request "
    "leaves open.\n{settled}Unresolved: {unresolved}\nAsk the user about the unresolved "
    "points before writing code."
)


def _user_text(session: Session) -> str:
    return "\n".join(t.text for t in session.trace if t.role == "user")


@register("gated")
class EvidenceGate:
    def __init__(self, env: HistoryEnv) -> None:
        self.env = env

    def context(self, session: Session) -> HistoryContext:
        history = self.env.history_of(session)
        found = [conventions_in(_user_text(h)) for h in history]
        seen: dict[str, set[str]] = {}
        for evidence in found:
            for family, alt in evidence.items():
                seen.setdefault(family, set()).add(alt)
        settled = {f: next(iter(alts)) for f, alts in seen.items() if len(alts) == 1}
        conflicting = sorted(f for f, alts in seen.items() if len(alts) > 1)
        lines = "\n".join(f"- {statement(f, a)}" for f, a in sorted(settled.items()))
        info = {"gate": "evidence", "settled": settled, "conflicting": conflicting}
        if settled and not conflicting:
            chosen = _cover(history, found, set(settled))
            return render_history(
                [history[i] for i in chosen],
                preface=SUFFICIENT.format(evidence=lines),
                decision="sufficient",
                highlighted=[history[i].id for i in chosen],
                **info,
            )
        open_points = conflicting or [f for f in cued(session.request) if f not in settled]
        unresolved = "; ".join(REGISTRY[f].question for f in open_points) or (
            "the earlier sessions show no recurring convention"
        )
        text = INSUFFICIENT.format(
            settled=f"Settled:\n{lines}\n" if lines else "", unresolved=unresolved
        )
        return HistoryContext(text, info={**info, "decision": "insufficient"})


def _cover(history: list[Session], found: list[dict[str, str]], wanted: set[str]) -> list[int]:
    """The fewest sessions whose statements cover every settled convention (greedy); on a
    tie the shorter, then the earlier, session. Usually one: the most informative."""
    chosen: list[int] = []
    while wanted:
        best = max(
            range(len(history)),
            key=lambda i: (
                len(wanted & found[i].keys()),
                -approx_tokens(render_session(history[i], 1)),
                -i,
            ),
        )
        if not wanted & found[best].keys():
            break
        chosen.append(best)
        wanted -= found[best].keys()
    return chosen


GATE_PROMPT = """You review a user's earlier, resolved coding sessions before they make a new request.
Look for conventions this user consistently expects but tends to leave unsaid (output format,
naming, input handling, where results go, error handling and the like): how earlier ambiguity
was resolved. Decide whether that evidence is enough to write the new request's code without
asking.

Answer with JSON only, in exactly this shape:
{"decision": "sufficient" or "insufficient",
 "session": <number of the single most informative earlier session, or null>,
 "evidence": [<one convention per item, as the user stated it>],
 "unresolved": [<one open point per item that the history does not settle>]}"""


def parse_gate(text: str, sessions: int) -> dict:
    """The gate's answer as {decision, session (index or None), evidence, unresolved};
    anything unreadable counts as insufficient evidence."""
    answer = json_answer(text, anywhere=True) or {}
    number = answer.get("session")
    index = number - 1 if isinstance(number, int) and not isinstance(number, bool) else None
    valid = index is not None and 0 <= index < sessions
    lists = {
        name: [str(x).strip() for x in answer.get(name) or [] if str(x).strip()][:12]
        if isinstance(answer.get(name), list)
        else []
        for name in ("evidence", "unresolved")
    }
    ok = str(answer.get("decision", "")).strip().lower() == "sufficient"
    return {
        "decision": "sufficient" if ok and valid and lists["evidence"] else "insufficient",
        "session": index if valid else None,
        **lists,
    }


@register("gated-llm")
class LLMGate:
    def __init__(self, env: HistoryEnv) -> None:
        self.env = env
        self.model = env.need_model("gated-llm")

    def context(self, session: Session) -> HistoryContext:
        history = self.env.history_of(session)
        if not history:
            return HistoryContext()
        shown = "\n\n".join(render_session(h, i) for i, h in enumerate(history, 1))
        reply = self.model.complete(
            [
                Message(role="system", content=GATE_PROMPT),
                Message(role="user", content=f"{shown}\n\n### New request\n{session.request}"),
            ],
            JSON_OBJECT,
        )
        verdict = parse_gate(reply.text, len(history))
        info = {
            "gate": "llm",
            "gate_tokens_in": reply.input_tokens,
            "gate_tokens_out": reply.output_tokens,
            **verdict,
        }
        if verdict["decision"] == "sufficient":
            best = history[verdict["session"]]
            lines = "\n".join(f"- {e}" for e in verdict["evidence"])
            return render_history(
                [best], preface=SUFFICIENT.format(evidence=lines), highlighted=[best.id], **info
            )
        settled = "".join(f"- {e}\n" for e in verdict["evidence"])
        unresolved = "; ".join(verdict["unresolved"]) or "anything the request leaves open"
        text = INSUFFICIENT.format(
            settled=f"Settled:\n{settled}" if settled else "", unresolved=unresolved
        )
        return HistoryContext(text, info=info)
