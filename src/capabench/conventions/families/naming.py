from capabench.conventions.base import Alternative, Family, Layer, register
from capabench.records import Mechanism


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest if part)


@register
class Naming(Family):
    id = "naming"
    mechanism = Mechanism.HABITUAL
    layer = Layer.NAMING
    cues = ()  # habitual: the user never mentions it
    intents = (
        r"\bnam(e|ing)",
        r"\bcall(ed)? (it|the function)",
        r"\bprefix",
        r"\bsuffix",
        r"\bcamel",
        r"\bsnake",
        r"\bidentifier",
        r"entry.?point",
        r"what should (i|we) call",
    )
    question = "What should the function be named in your codebase?"
    alternatives = (
        Alternative(
            "acme_prefix",
            "Our functions are always prefixed with acme_, e.g. acme_parse_row.",
            ("acme_",),
        ),
        Alternative("camel_case", "We name functions in camelCase, e.g. parseRow.", ("camelcase",)),
        Alternative("impl_suffix", "Our functions end in _impl, e.g. parse_row_impl.", ("_impl",)),
    )

    def applies(self, shape):
        return "_" in shape.task.entry_point.strip("_")  # camelCase must differ from the plain name

    def public_name(self, alt, base):
        return {
            "acme_prefix": f"acme_{base}",
            "camel_case": camel(base),
            "impl_suffix": f"{base}_impl",
        }[alt]

    def wrap(self, alt, inner, ctx):
        raise AssertionError("naming renames the public function; it adds no layer")
