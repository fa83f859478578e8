"""What an ask classifier (v1, v2 or the LLM judge) says about one final message, and what
every classifier is."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel


class Detection(BaseModel):
    asked: bool
    version: str
    gate: str  # "edited" or "zero_edit"
    categories: list[str] = []  # what fired: question, info_request, option_list
    questions: list[str] = []  # the counted question units
    blocked: dict[str, int] = {}  # blocker category -> units it stopped
    questions_with_edits: bool = False
    note: str = ""  # the judge's reason, or why it fell back to the rules


class AskClassifier(Protocol):
    version: str

    def classify(self, message: str, *, edited: bool = False) -> Detection: ...
