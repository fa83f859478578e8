"""Reports over run directories: the paper's tables, CSV/JSON, plots and one HTML file."""

from capabench.report.collect import RunData, load_runs
from capabench.report.tables import condition_rows, main_table_rows

__all__ = ["RunData", "condition_rows", "load_runs", "main_table_rows"]
