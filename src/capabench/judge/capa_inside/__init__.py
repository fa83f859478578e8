"""Code that runs inside the sandbox. Stdlib only: capabench is not importable there."""
