"""The `capabench` command: one module per command group (tasks and the judge, benchmarks, run,
study, reports, swe), the options they share in `options.py`."""

import importlib

from capabench.cli.app import app
from capabench.cli.swe import swe_app

# Importing a group's module registers its commands, in the order `capabench --help` lists them.
for _group in ("tasks", "benchmark", "run", "study", "report", "annotate"):
    importlib.import_module(f"capabench.cli.{_group}")
app.add_typer(swe_app, name="swe")


def main() -> None:  # pragma: no cover - console script entry
    app()


__all__ = ["app", "main"]
