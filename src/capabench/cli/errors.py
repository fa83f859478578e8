"""How every capabench command reports a usage or input error: one red line on stderr, exit 2."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

console = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """The exit to raise; the message is printed verbatim (`[extra]` is text, not markup)."""
    console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True, highlight=False)
    return typer.Exit(2)
