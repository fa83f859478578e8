"""`capabench annotate sample | agree`: the taxonomy validation kit."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from capabench.cli.app import app
from capabench.cli.common import load_bench
from capabench.cli.errors import fail
from capabench.cli.options import BaseUrlOpt, BenchmarkOpt

annotate_app = typer.Typer(
    rich_markup_mode=None,
    help="Validate the mechanism taxonomy with annotators (Fleiss' kappa, as the paper did).",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(annotate_app, name="annotate")
out = Console()


@annotate_app.command("sample")
def sample_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="a new directory for the kit")],
    n: Annotated[int, typer.Option("--n", min=6, help="items (conventions) to label")] = 60,
    annotators: Annotated[
        str, typer.Option("--annotators", help="comma-separated names (letters, digits, - _ .)")
    ] = "a1,a2,a3",
    per_item: Annotated[int, typer.Option("--per-item", min=2, help="labels per item")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="which items")] = 0,
    benchmark: BenchmarkOpt = None,
) -> None:
    """Draw items balanced over the six mechanisms and write one sheet per annotator (CSV and
    an offline HTML form) in a cyclic design; the benchmark's labels stay in key.json."""
    from capabench.annotate.kit import sample_items, write_kit

    names = [a.strip() for a in annotators.split(",") if a.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise fail("--annotators needs at least two distinct names")
    bench = load_bench(0, benchmark)
    try:
        items = sample_items(bench, n, seed)
        write_kit(items, names, out_dir, per_item)
    except (ValueError, FileExistsError) as exc:
        raise fail(str(exc)) from None
    out.print(
        f"{len(items)} items, {len(names)} sheets in {out_dir / 'sheets'} "
        f"({min(per_item, len(names))} labels per item); the key is {out_dir / 'key.json'}"
    )
    out.print(
        f"filled sheets go back to {out_dir}/labels/<annotator>.csv, then: capabench annotate agree {out_dir}"
    )


@annotate_app.command("agree")
def agree_cmd(
    kit: Annotated[Path, typer.Argument(help="a kit made by `annotate sample`")],
    model: Annotated[
        str | None, typer.Option("--model", help="a model rates every item as one more rater")
    ] = None,
    base_url: BaseUrlOpt = None,
) -> None:
    """Agreement among the raters (Fleiss' kappa overall and per mechanism, Krippendorff's
    alpha) and with the benchmark's labels, with the confusion table; agreement.json beside."""
    from capabench.annotate.agree import SheetError, agreement, read_kit

    if not (kit / "key.json").is_file():
        raise fail(f"{kit} is not an annotation kit (no key.json): make one with annotate sample")
    if model:
        from capabench.annotate.rater import rate_with_model
        from capabench.models import ModelOptions, make_model
        from capabench.paths import cache_dir

        options = ModelOptions(
            base_url=base_url, max_tokens=64, cache=str(cache_dir() / "responses.sqlite")
        )
        try:
            chat = make_model(model, options)
        except (ValueError, OSError) as exc:
            raise fail(f"--model {model}: {exc}") from None
        name = "model-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", model)
        path, unreadable = rate_with_model(chat, kit, name)
        out.print(f"{model} rated the items into {path} ({unreadable} answers named no mechanism)")
    try:
        key, ratings = read_kit(kit)
        result = agreement(key, ratings)
    except ImportError as exc:
        raise fail(
            f"agreement needs the annotate extra (pip install 'capabench[annotate]'): {exc}"
        ) from None
    except (SheetError, OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    (kit / "agreement.json").write_text(result.model_dump_json(indent=1))
    show = lambda v: "–" if v is None else f"{v:.3f}"  # noqa: E731
    out.print(
        f"{len(result.raters)} raters, {result.items} items with two or more labels, "
        f"{result.complete_items} with all {len(result.raters)}: Fleiss' kappa "
        f"{show(result.fleiss_kappa)}, Krippendorff's alpha {show(result.krippendorff_alpha)}"
    )
    table = Table("mechanism", "Fleiss' kappa")
    for m, v in result.per_mechanism_kappa.items():
        table.add_row(m, show(v))
    out.print(table)
    table = Table("rater", "agrees with the benchmark", "items")
    for r, v in result.with_benchmark.items():
        table.add_row(r, f"{v['agree']:.1%}", str(v["n"]))
    out.print(table)
    mechs = list(result.confusion)
    table = Table("benchmark \\ raters", *[str(k + 1) for k in range(len(mechs))])
    for k, m in enumerate(mechs):
        table.add_row(f"{k + 1} {m}", *[str(result.confusion[m].get(o, 0)) for o in mechs])
    out.print(table)
    out.print(f"written: {kit / 'agreement.json'}")
