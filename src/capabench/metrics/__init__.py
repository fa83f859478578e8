"""Metrics over session runs: ES, FT-ES, TTC and the interaction rates, with cluster-aware
intervals, breakdowns, paired tests with Holm's correction, and pass^k. Reads records only."""

from capabench.metrics.core import (
    Summary,
    breakdown,
    difficulty_of,
    epochs_of,
    interval_methods,
    pass_k,
    per_session,
    summarize,
)
from capabench.metrics.stats import TEST_METHODS, PairedTest, holm, mcnemar, paired_tests, wilcoxon

__all__ = [
    "TEST_METHODS",
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
    "wilcoxon",
]
