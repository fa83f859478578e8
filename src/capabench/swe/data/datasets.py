"""Loading ask-or-guess datasets: the interactive-swe schema from JSONL, Parquet or a
HuggingFace `save_to_disk` folder, and the missing-info workbook (xlsx) joined to one of those.
Every problem is reported with the file, the row and the field at fault."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from capabench.swe.swe_records import Instance

# Dataset column -> Instance field. SWE-bench spells the test lists in capitals.
COLUMNS = {
    "instance_id": "instance_id",
    "repo": "repo",
    "base_commit": "base_commit",
    "problem_statement": "problem_statement",
    "original_issue": "original_issue",
    "FAIL_TO_PASS": "fail_to_pass",
    "PASS_TO_PASS": "pass_to_pass",
    "patch": "patch",
    "test_patch": "test_patch",
    "hints_text": "hints_text",
    "difficulty": "difficulty",
    "version": "version",
    "environment_setup_commit": "environment_setup_commit",
}
REQUIRED = (
    "instance_id",
    "repo",
    "base_commit",
    "problem_statement",
    "original_issue",
    "FAIL_TO_PASS",
    "patch",
)
# The workbook's column names for the rewritten (ambiguous) issue, by preference.
WORKBOOK_ISSUE = (
    "problem_statement",
    "underspecified_issue",
    "underspecified_statement",
    "ambiguous_issue",
    "masked_issue",
)


class DatasetError(ValueError):
    """A dataset that can't be used, and where."""


def load_instances(
    path: str | Path, *, base: str | Path | None = None, summaries: str | Path | None = None
) -> list[Instance]:
    """Instances from a .jsonl/.json/.parquet file, a `save_to_disk` folder, or an .xlsx
    workbook (whose rows take repo, commit, tests and gold patch from `base` by instance_id).
    With `summaries` (a CSV or JSONL of instance_id and a summary, e.g. the paper's
    underspecified.csv), `path` is a SWE-bench dataset: its issue is the full form, the
    summary the ambiguous one, joined by instance_id (instances without a summary left out)."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file or folder")
    if summaries is not None:
        return _with_summaries(path, Path(summaries))
    if path.suffix == ".xlsx":
        if base is None:
            raise DatasetError(
                f"{path}: a workbook names instances only; give the dataset "
                "they come from (--base) for repository, commit, tests and patch"
            )
        return _workbook(path, {i.instance_id: i for i in load_instances(base)})
    rows = _rows(
        path, f"{path}: not a dataset (.jsonl, .json, .parquet, .xlsx or a save_to_disk folder)"
    )
    return _instances(rows, path)


def _rows(path: Path, unknown: str) -> Iterable[dict]:
    """A dataset file's or save_to_disk folder's rows; `unknown`: the error for anything else."""
    if path.is_dir():
        return _arrow_folder(path)
    if path.suffix in (".jsonl", ".json"):
        return _json_rows(path)
    if path.suffix == ".parquet":
        return _parquet_rows(path)
    raise DatasetError(unknown)


def _instances(rows: Iterable[dict], source: Path) -> list[Instance]:
    out: dict[str, Instance] = {}
    for number, row in enumerate(rows, 1):
        where = f"{source}: row {number}"
        if not isinstance(row, dict):
            raise DatasetError(f"{where}: not an object")
        where += f" ({row.get('instance_id', 'no instance_id')})"
        missing = [c for c in REQUIRED if row.get(c) in (None, "")]
        if missing == ["original_issue"]:
            raise DatasetError(
                f"{where}: missing original_issue: one form of the issue only (a SWE-bench "
                "dataset?); give the ambiguous one with --summaries FILE (a CSV/JSONL of "
                "instance_id and summary)"
            )
        if missing:
            raise DatasetError(f"{where}: missing {', '.join(missing)}")
        fields = {COLUMNS[c]: row[c] for c in COLUMNS if row.get(c) is not None}
        if "version" in fields:  # a number in some copies ("1.1")
            fields["version"] = str(fields["version"])
        for name in ("fail_to_pass", "pass_to_pass"):
            if name in fields:
                fields[name] = _test_list(fields[name], f"{where}: {name.upper()}")
        fields["source"] = source.name
        try:
            instance = Instance(**fields)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(p) for p in problem["loc"])
            raise DatasetError(f"{where}: {field}: {problem['msg']}") from None
        if instance.instance_id in out:
            raise DatasetError(f"{where}: instance_id appears twice")
        out[instance.instance_id] = instance
    if not out:
        raise DatasetError(f"{source}: no instances")
    return list(out.values())


def _test_list(value, where: str) -> tuple[str, ...]:
    """SWE-bench keeps test lists as JSON text; Parquet and Arrow may hold real lists."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise DatasetError(f"{where}: not a JSON list of test ids") from None
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise DatasetError(f"{where}: not a list of test ids")
    return tuple(value)


def _json_rows(path: Path) -> Iterator[dict]:
    text = path.read_text()
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise DatasetError(f"{path}: not JSON ({exc})") from None
        if not isinstance(data, list):
            raise DatasetError(f"{path}: expected a JSON list of instances")
        yield from data
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"{path}: line {number}: not JSON ({exc})") from None


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise DatasetError(
            "Parquet and save_to_disk datasets need pyarrow: pip install 'capabench[swe]'"
        ) from None
    return pyarrow


def _parquet_rows(path: Path) -> list[dict]:
    return _pyarrow().parquet.read_table(path).to_pylist()


def _arrow_folder(path: Path) -> list[dict]:
    """A HuggingFace `save_to_disk` folder: Arrow stream files listed in state.json (a
    DatasetDict folder holds one such folder per split; its `test` split, or its only one)."""
    if (path / "dataset_dict.json").is_file():
        splits = json.loads((path / "dataset_dict.json").read_text()).get("splits", [])
        split = "test" if "test" in splits else (splits[0] if len(splits) == 1 else None)
        if split is None:
            raise DatasetError(
                f"{path}: several splits ({', '.join(splits)}) and none is 'test'; give the split's folder"
            )
        return _arrow_folder(path / split)
    state = path / "state.json"
    if not state.is_file():
        raise DatasetError(f"{path}: not a save_to_disk folder (no state.json)")
    files = [path / f["filename"] for f in json.loads(state.read_text()).get("_data_files", [])]
    if not files or not all(f.is_file() for f in files):
        raise DatasetError(f"{path}: state.json lists Arrow files that are missing")
    pa = _pyarrow()
    rows: list[dict] = []
    for file in files:
        with pa.memory_map(str(file)) as source:
            rows.extend(pa.ipc.open_stream(source).read_all().to_pylist())
    return rows


def _workbook(path: Path, base: dict[str, Instance]) -> list[Instance]:
    """The missing-info workbook: one row per instance, its rewritten issue, and annotations
    (withheld categories, probe questions, baseline questions) kept in `extra`."""
    try:
        from openpyxl import load_workbook
    except ImportError:
        raise DatasetError("xlsx workbooks need openpyxl: pip install 'capabench[swe]'") from None
    sheet = load_workbook(path, read_only=True, data_only=True).worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = [str(h).strip() if h is not None else "" for h in next(rows, ())]
    if "instance_id" not in header:
        raise DatasetError(f"{path}: the first sheet has no instance_id column")
    issue = next((c for c in WORKBOOK_ISSUE if c in header), None)
    if issue is None:
        raise DatasetError(
            f"{path}: no column with the rewritten issue (one of {', '.join(WORKBOOK_ISSUE)})"
        )
    out = []
    for number, values in enumerate(rows, 2):
        row = {h: v for h, v in zip(header, values, strict=False) if h}
        if not any(v not in (None, "") for v in row.values()):
            continue
        key = str(row.get("instance_id") or "").strip()
        where = f"{path}: row {number} ({key or 'no instance_id'})"
        if key not in base:
            raise DatasetError(f"{where}: not in the base dataset")
        text = str(row.get(issue) or "").strip()
        if not text:
            raise DatasetError(f"{where}: empty {issue}")
        extra = {
            h: str(v)
            for h, v in row.items()
            if h not in ("instance_id", issue) and v not in (None, "")
        }
        out.append(
            base[key].model_copy(
                update={"problem_statement": text, "source": path.name, "extra": extra}
            )
        )
    if not out:
        raise DatasetError(f"{path}: no instances")
    return out


# A summaries file's column for the rewritten issue, by preference (the paper's
# underspecified.csv calls it problem_statement).
SUMMARY_COLUMNS = ("summary", *WORKBOOK_ISSUE)


def read_summaries(path: Path) -> dict[str, str]:
    """{instance_id: summary} from a CSV or JSONL file."""
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    if path.suffix == ".csv":
        import csv

        with path.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
    elif path.suffix in (".jsonl", ".json"):
        rows = list(_json_rows(path))
    else:
        raise DatasetError(f"{path}: summaries are a .csv or .jsonl file")
    if not rows:
        raise DatasetError(f"{path}: no rows")
    column = next((c for c in SUMMARY_COLUMNS if c in rows[0]), None)
    if "instance_id" not in rows[0] or column is None:
        raise DatasetError(
            f"{path}: needs an instance_id column and a summary column (one of "
            f"{', '.join(SUMMARY_COLUMNS)})"
        )
    out = {}
    for number, row in enumerate(rows, 2 if path.suffix == ".csv" else 1):
        key, text = str(row.get("instance_id") or "").strip(), str(row.get(column) or "").strip()
        if not key or not text:
            raise DatasetError(f"{path}: row {number}: empty instance_id or {column}")
        out[key] = text
    return out


def _with_summaries(path: Path, summaries: Path) -> list[Instance]:
    by_id = read_summaries(summaries)
    rows = _rows(
        path, f"{path}: --summaries joins a .jsonl, .json, .parquet or save_to_disk dataset"
    )
    joined = []
    for row in rows:
        if isinstance(row, dict) and str(row.get("instance_id", "")) in by_id:
            joined.append(
                row
                | {
                    "original_issue": row.get("problem_statement"),
                    "problem_statement": by_id[str(row["instance_id"])],
                }
            )
    if not joined:
        raise DatasetError(f"{path}: no instance has a summary in {summaries}")
    return [
        i.model_copy(update={"source": f"{path.name}+{summaries.name}"})
        for i in _instances(joined, path)
    ]
