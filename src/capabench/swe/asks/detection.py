"""Did a turn's final message ask the user something? The two-layer classifier for arms
whose only ask channel is ending a turn with a question (the Codex CLI).

Layer 1, the zero-edit gate: a turn that changed the workspace (file-change events, or a
git fingerprint delta that also catches shell edits) is never an ask; that its text had a
question anyway is recorded (`questions_with_edits`) so the assumption stays auditable.
Layer 2, a small regex layer (config/ask_detection.json): a ?-terminated question unit
outside code, inline code and blockquotes counts unless a blocker fires (tag questions,
offers of more help, rhetorical self-answered questions, closing pleasantries); a message
with no counted question still asks through an explicit information request, or an
interrogative line ending in a colon followed by a list of options.

That is classifier v1, kept by name to compare with the published ambig-SWE numbers; the
default is v3: v2 (asks/speech_acts.py: speech acts, and an edit gate that lets a blocked edited
turn ask) with a learned veto over its asks (asks/veto.py). `classifier("v1")`,
`classifier("v2")`, `classifier("v3")` or `classifier(PATH)` for a config of any kind."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from capabench import messages
from capabench.swe.asks.speech_acts import SpeechActClassifier
from capabench.swe.asks.verdict import AskClassifier, Detection
from capabench.swe.asks.veto import VetoedClassifier, VetoWeights

CONFIG = Path(__file__).with_name("config") / "ask_detection.json"  # v1
CONFIGS = {
    "v1": CONFIG,
    "v2": CONFIG.with_name("ask_detection_v2.json"),
    "v3": CONFIG.with_name("ask_detection_v3.json"),  # v2, its asks checked by a learned veto
}
DEFAULT = "v3"
# v1's own units, not the reader's sentences: cut at every run of . ! ? and every line end,
# abbreviations and dotted words not kept whole. Kept so that v1 stays the classifier it was
# (the reader's sentences flip some of its verdicts); v2 reads sentences.
_UNIT = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")


@dataclass(frozen=True)
class Classifier:
    version: str
    signals: dict[str, list[re.Pattern]] = field(default_factory=dict)
    blockers: dict[str, list[re.Pattern]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path = CONFIG) -> Classifier:
        data = json.loads(Path(path).read_text())

        def compile_all(group: dict) -> dict[str, list[re.Pattern]]:
            return {k: [re.compile(p, re.I | re.M) for p in v] for k, v in group.items()}

        return cls(
            f"v{data['version']}", compile_all(data["signals"]), compile_all(data["blockers"])
        )

    def classify(self, message: str, *, edited: bool = False) -> Detection:
        text = prose(message)
        counted, blocked = [], {}
        units = [u.strip() for u in _UNIT.findall(text) if u.strip()]
        for i, unit in enumerate(units):
            if not unit.endswith("?"):
                continue
            following = units[i + 1] if i + 1 < len(units) else ""
            category = self._blocker(unit, following)
            if category:
                blocked[category] = blocked.get(category, 0) + 1
            else:
                counted.append(unit)
        categories = ["question"] if counted else []
        if any(p.search(text) for p in self.signals.get("info_request", [])):
            categories.append("info_request")
        if self._option_list(text):
            categories.append("option_list")
        would_ask = bool(categories)
        return Detection(
            asked=would_ask and not edited,
            version=self.version,
            gate="edited" if edited else "zero_edit",
            categories=categories,
            questions=counted,
            blocked=blocked,
            questions_with_edits=would_ask and edited,
        )

    def _blocker(self, unit: str, following: str) -> str | None:
        for category, patterns in self.blockers.items():
            target = f"{unit} {following}" if category == "rhetorical" else unit
            if any(p.search(target) for p in patterns):
                return category
        return None

    def _option_list(self, text: str) -> bool:
        lines = text.splitlines()
        intros = self.signals.get("option_list_intro", [])
        for i, line in enumerate(lines):
            if line.rstrip().endswith(":") and any(p.search(line) for p in intros):
                items = 0
                for after in lines[i + 1 :]:
                    if messages.is_list_item(after) and messages.without_bullet(after).strip():
                        items += 1
                    elif after.strip():
                        break
                if items >= 2:
                    return True
        return False


def prose(message: str) -> str:
    """The message without code blocks, inline code and blockquotes."""
    text = messages.without_inline_code(messages.without_fences(message), "CODE")
    return "\n".join(line for line in text.splitlines() if not messages.is_blockquote(line))


def load(spec: str | Path) -> AskClassifier:
    """A classifier by version name ("v1", "v2", "v3") or from a config file of any kind."""
    path = CONFIGS.get(str(spec), Path(spec))
    data = json.loads(Path(path).read_text())
    if data.get("kind") == "vetoed":  # a base classifier and the veto over its asks
        veto = VetoWeights.load(Path(path).with_name(data["veto"]))
        return VetoedClassifier(load(data["base"]), veto, f"v{data['version']}")
    if data.get("kind") == "speech_acts":
        return SpeechActClassifier.from_config(data)
    return Classifier.load(path)


@lru_cache(maxsize=8)
def classifier(spec: str = DEFAULT) -> AskClassifier:
    return load(spec)
