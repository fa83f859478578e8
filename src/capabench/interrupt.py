"""Ctrl-C for work that runs in threads: the batch layer requests a stop when the user
interrupts, and long calls that run outside Python's reach (a local model's generation)
check it and end early. `Interrupted` is a BaseException so that no layer records it as a
result: the job is simply not finished, and a resumed run plays it again."""

from __future__ import annotations

import threading

_requested = threading.Event()


class Interrupted(BaseException):
    pass


def request() -> None:
    _requested.set()


def requested() -> bool:
    return _requested.is_set()


def clear() -> None:
    _requested.clear()
