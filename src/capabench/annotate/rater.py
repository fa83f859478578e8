"""A model as one more rater: one JSON call per item, the answer validated against the six
mechanisms; an answer that isn't one of them leaves the item unlabelled (counted)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from capabench.annotate.agree import mechanism_named
from capabench.models import JSON_OBJECT, ChatModel, Message
from capabench.models.json_answer import json_answer

PROMPT = """A user asked a coding assistant for something and left one thing unsaid, which the
assistant had to know to satisfy them. Which mechanism made it go unsaid? Choose one of:
{choices}

The request:
{request}

What the user wanted, unsaid: {statement}

Answer with JSON only: {{"mechanism": "<one of the names above, verbatim>"}}"""


def rate_with_model(model: ChatModel, kit: Path, name: str) -> tuple[Path, int]:
    """Rate every item of the kit; writes kit/labels/<name>.csv. Returns it and the number of
    answers that named no mechanism."""
    key = json.loads((kit / "key.json").read_text())
    mechanisms = key["mechanisms"]
    items = {}
    for sheet in sorted((kit / "sheets").glob("*.csv")):
        with sheet.open(newline="") as f:
            items |= {row["item_id"]: row for row in csv.DictReader(f)}
    choices = "\n".join(f"- {m}" for m in mechanisms)
    out = kit / "labels" / f"{name}.csv"
    out.parent.mkdir(exist_ok=True)
    unreadable = 0
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(("item_id", "label"))
        for item_id in sorted(items):
            row = items[item_id]
            prompt = PROMPT.format(
                choices=choices, request=row["request"], statement=row["statement"]
            )
            text = model.complete([Message(role="user", content=prompt)], JSON_OBJECT).text
            label = _mechanism(text, mechanisms)
            unreadable += label == ""
            writer.writerow((item_id, label))
    return out, unreadable


def _mechanism(text: str, mechanisms: list[str]) -> str:
    value = (json_answer(text, anywhere=True) or {}).get("mechanism", "")
    return (isinstance(value, str) and mechanism_named(value, mechanisms)) or ""
