"""The old path of `capabench.swe.swe_records` (the arm's records), kept for outside agent
runners that import from it."""

from capabench.swe.swe_records import *  # noqa: F403
