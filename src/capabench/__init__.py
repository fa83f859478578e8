"""capabench: personalized-ambiguity benchmarks for coding assistants."""

__version__ = "0.1.0"
