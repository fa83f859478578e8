"""The edit gate's reading of a whole message for the ask classifier v2: whether the work
reads finished, unfinished or stuck, each searched once and only when a verdict needs it."""

from __future__ import annotations


class Gate:
    """`clf`: the classifier whose gate patterns (`finished`, `unfinished`, ...) are read."""

    def __init__(self, clf: object, text: str) -> None:
        self.clf, self.text, self._seen = clf, text, {}

    def _has(self, name: str) -> bool:
        if name not in self._seen:
            self._seen[name] = bool(getattr(self.clf, name).search(self.text))
        return self._seen[name]

    def unfinished(self) -> bool:
        return self._has("unfinished_strong") or self._has("unfinished")

    def finished(self) -> bool:
        return self._has("finished")

    def stuck(self) -> bool:
        return self._has("unfinished_strong")

    def done(self, edited: bool) -> bool:
        """Whether "Shall I also ...?" offers more work after the task's own work: after edits,
        unless the text says that work is unfinished ("haven't merged it", "stopped before
        ..."); without edits, only when the turn found nothing to change."""
        if self._has("unfinished_strong"):
            return False
        return True if edited else self._has("no_change")
