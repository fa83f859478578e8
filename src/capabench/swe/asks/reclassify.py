"""Re-applying an ask classifier (or the LLM judge) to every stored final message, to see
which verdicts a new classifier would change; read-only on the store."""

from __future__ import annotations

from pydantic import BaseModel

from capabench.swe.asks.detection import classifier
from capabench.swe.asks.verdict import AskClassifier
from capabench.swe.swe_records import EventKind


class Reclassification(BaseModel):
    version: str
    runs: int
    messages: int
    disagreements: list[dict]  # run_id, index, stored, now, text
    firing: dict[str, int]  # category or blocker -> messages it fired on
    questions_with_edits: int


def reclassify(store, clf: AskClassifier | None = None) -> Reclassification:
    """Re-apply a classifier to every stored final message (events of kind "final", with the
    detection recorded when the run happened); nothing is re-run or rewritten."""
    clf = clf or classifier()
    runs, messages, disagreements, firing, with_edits = 0, 0, [], {}, 0
    for summary in store.summaries():
        finals = [e for e in store.events(summary.run_id) if e.get("kind") == EventKind.FINAL]
        runs += bool(finals)
        for index, event in enumerate(finals):
            messages += 1
            now = clf.classify(event["text"], edited=bool(event.get("edited")))
            for name in [*now.categories, *now.blocked]:
                firing[name] = firing.get(name, 0) + 1
            with_edits += now.questions_with_edits
            stored = (event.get("detection") or {}).get("asked")
            if stored is not None and stored != now.asked:
                disagreements.append(
                    {
                        "run_id": summary.run_id,
                        "index": index,
                        "stored": stored,
                        "now": now.asked,
                        "text": event["text"][:200],
                    }
                )
    return Reclassification(
        version=clf.version,
        runs=runs,
        messages=messages,
        disagreements=disagreements,
        firing=firing,
        questions_with_edits=with_edits,
    )
