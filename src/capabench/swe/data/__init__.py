"""The arm's datasets: files in the interactive-swe schema (and the missing-info workbook),
and the bundled libraries, made into git repositories and checked on first use."""
