"""The `capabench` Typer app and its version flag; the command modules register on it."""

from __future__ import annotations

from typing import Annotated

import typer

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}  # subcommands inherit it
app = typer.Typer(
    rich_markup_mode=None,  # help texts are plain: "local[/<gguf>]" is not markup
    help="capabench: personalized-ambiguity benchmarks for coding assistants.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)
tasks_app = typer.Typer(
    rich_markup_mode=None,
    help="Task sources: list and verify them.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)
app.add_typer(tasks_app, name="tasks")


def _version(value: bool) -> None:
    if value:
        import capabench

        print(f"capabench {capabench.__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """capabench: personalized-ambiguity benchmarks for coding assistants."""
