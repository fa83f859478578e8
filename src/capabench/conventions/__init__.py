"""Executable conventions: families of mutually exclusive alternatives that decide the hidden tests."""

from capabench.conventions.base import REGISTRY, Alternative, Family, Layer
from capabench.conventions.compose import Composed, compose, hidden_calls, public_name
from capabench.conventions.evidence import conventions_in, cued
from capabench.conventions.shape import Call, Shape

__all__ = [
    "REGISTRY",
    "Alternative",
    "Call",
    "Composed",
    "Family",
    "Layer",
    "Shape",
    "compose",
    "conventions_in",
    "cued",
    "hidden_calls",
    "public_name",
]
