"""Convention families: a recurring thing a user leaves unsaid, with mutually exclusive
alternatives that the hidden tests tell apart.

A family is one small class, registered by name. It says when it applies to a task,
how each alternative wraps the function being built (one layer, in a fixed order),
which calls the hidden tests make for it (probes), and what the tests check besides
the returned value (logs, output, files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from capabench.conventions.shape import Call, Shape
from capabench.records import Mechanism
from capabench.registry import Registry


class Layer(IntEnum):
    """Composition order, innermost first. The core (the task's own solution) sits at 1."""

    VALIDATION = 0
    OUTPUT = 2
    ENVELOPE = 3
    INPUT = 4
    BATCH = 5
    NAMING = 6
    LOGGING = 7


@dataclass(frozen=True)
class Alternative:
    id: str
    statement: str  # what the user says when asked about this family
    secrets: tuple[str, ...] = ()  # tokens that would give it away if they appeared in a request


@dataclass(frozen=True)
class Vocabulary:
    """How people ask about a family, by its concept (what varies between its alternatives),
    as regexes over a lowercased question. `anchors` name the concept outright. `aspects`
    are everyday words for what varies that other topics use too ("order", "case", "name"):
    they count only in a question that also names one of the family's `subjects` (what the
    aspect is of: the returned list, the text, the function). `ignore` masks wording that
    means something else ("edge case", "sort of") before anything is matched. `questions`
    are plain questions about the concept in the family's own frame ("can the inputs be
    negative?"): an asking sentence that matches one asks about the family, whatever else a
    matcher makes of it."""

    anchors: tuple[str, ...]
    aspects: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fn:
    """The function built so far: its name, parameter list source, and how to call it."""

    name: str
    params_src: str
    forward: str

    def call(self) -> str:
        return f"{self.name}({self.forward})"


@dataclass(frozen=True)
class Context:
    shape: Shape
    public_name: str  # the name the hidden tests call
    base_name: str  # the task's own entry point


@dataclass(frozen=True)
class Layered:
    """What a layer contributes: module-level imports, its code, and the new outer function."""

    code: str
    fn: Fn
    imports: tuple[str, ...] = ()


@dataclass
class Check:
    """A per-call assertion the hidden tests make besides the value (source of a statement
    using `candidate` and `expected`, the value the reference returned)."""

    source: str
    imports: tuple[str, ...] = field(default_factory=tuple)


class Family:
    id: ClassVar[str]
    mechanism: ClassVar[Mechanism]
    layer: ClassVar[Layer]
    cues: ClassVar[
        tuple[str, ...]
    ] = ()  # the user's shorthand in a request; () = left out entirely
    concept: ClassVar[str]  # what the user leaves unsaid, in a line (the LLM matcher reads it)
    vocabulary: ClassVar[Vocabulary]  # how questions about it are worded (the rules matcher)
    exemplars: ClassVar[tuple[str, ...]] = ()  # questions about it (the semantic matcher)
    question: ClassVar[str]  # how an assistant asks about it
    alternatives: ClassVar[tuple[Alternative, ...]]
    conflicts: ClassVar[frozenset[str]] = frozenset()  # families it can't be combined with

    def applies(self, shape: Shape) -> bool:
        return True

    # Stage 1's information control: how a request shows an example's information in words
    # true under every alternative, once this family decides part of what the example shows.
    def describe_result(self, value: object, text: str) -> str:
        """`text` (the inner layers' wording of `value`) as this layer leaves it."""
        return text

    def reword(self, text: str) -> str:
        """The task's prose with what this layer decides put in words true under every
        alternative (a yes/no layer: "return True if..." says yes)."""
        return text

    def describe_input(self, value: object) -> str | None:
        """An input layer's wording of the argument it decides; None: it doesn't decide it."""
        return None

    def governs(self, args: tuple) -> bool:
        """A validation layer: whether these inputs are the very case it decides."""
        return False

    def alternative(self, alt_id: str) -> Alternative:
        for alt in self.alternatives:
            if alt.id == alt_id:
                return alt
        raise KeyError(f"{self.id} has no alternative {alt_id!r}")

    def wrap(self, alt: str, inner: Fn, ctx: Context) -> Layered:
        """Wrap `inner` in this family's layer for alternative `alt`."""
        raise NotImplementedError

    def public_name(self, alt: str, base: str) -> str | None:
        """Only the naming layer renames the public function."""
        return None

    def adapt(self, alt: str, calls: list[Call], ctx: Context) -> list[Call]:
        """The calls the hidden tests make once this layer is on (default: unchanged)."""
        return calls

    def checks(self, alt: str, ctx: Context) -> list[Check]:
        return []


def tells_apart(outputs: list, transforms: dict) -> bool:
    """Do the transforms (alternative -> function of an output) differ from the plain output
    and from each other on some recorded output? Decided here, before any sandbox run."""
    results = {name: [fn(o) for o in outputs] for name, fn in transforms.items()}
    results["<plain>"] = list(outputs)
    names = list(results)
    return all(results[a] != results[b] for i, a in enumerate(names) for b in names[i + 1 :])


def same_signature(layer_name: str, inner: Fn, body: str, imports: tuple[str, ...] = ()) -> Layered:
    """A layer with the inner function's signature whose body uses `{call}` for the inner call."""
    fn = Fn(layer_name, inner.params_src, inner.forward)
    text = body.format(call=inner.call())
    code = f"def {layer_name}({inner.params_src}):\n" + "".join(
        f"    {line}\n" for line in text.splitlines()
    )
    return Layered(code, fn, imports)


# A family is one module of `conventions.families`, or of an installed package's
# `capabench.families` entry point, whose class is decorated with `register`.
REGISTRY: Registry[Family] = Registry(
    "convention family", package="capabench.conventions.families", group="capabench.families"
)


def register(cls: type[Family]) -> type[Family]:
    family = cls()
    if len(family.alternatives) < 2 or len({a.id for a in family.alternatives}) != len(
        family.alternatives
    ):
        raise ValueError(f"{family.id}: needs two or more distinct alternatives")
    REGISTRY.add(family.id, family, origin=cls.__module__)
    return cls
