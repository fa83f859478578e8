"""Metrics over session runs: ES, FT-ES, TTC and the interaction rates, with cluster-aware
intervals, breakdowns, paired tests with Holm's correction, pass^k (ES and FT-ES) and the
spread of TTC across epochs. Reads records only."""

from capabench.metrics.core import (
    EpochSpread,
    Summary,
    breakdown,
    difficulty_of,
    epochs_of,
    interval_methods,
    pass_k,
    per_session,
    summarize,
    ttc_spread,
)
from capabench.metrics.stats import TEST_METHODS, PairedTest, holm, mcnemar, paired_tests, wilcoxon

__all__ = [
    "TEST_METHODS",
    "EpochSpread",
    "PairedTest",
    "Summary",
    "breakdown",
    "difficulty_of",
    "epochs_of",
    "holm",
    "interval_methods",
    "mcnemar",
    "paired_tests",
    "pass_k",
    "per_session",
    "summarize",
    "ttc_spread",
    "wilcoxon",
]
