"""capabench: personalized-ambiguity benchmarks for coding assistants."""

from capabench._compat import serialize_ast_parse

__version__ = "0.1.0"

serialize_ast_parse()
