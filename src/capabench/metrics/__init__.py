"""Metrics over session runs: ES, FT-ES, TTC and the interaction rates, with bootstrap
intervals, breakdowns, paired tests and pass^k. Reads records only."""

from capabench.metrics.core import Summary, breakdown, difficulty_of, pass_k, summarize
from capabench.metrics.stats import PairedTest, mcnemar, paired_tests, wilcoxon

__all__ = [
    "PairedTest",
    "Summary",
    "breakdown",
    "difficulty_of",
    "mcnemar",
    "paired_tests",
    "pass_k",
    "summarize",
    "wilcoxon",
]
