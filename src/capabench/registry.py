"""One registry type for every extension point (model providers, convention families,
history methods, agent runners, executors, intent matchers).

A member registers by being there: on the first lookup the registry imports every module of
its package (pkgutil), whose decorators add their members, and then every Python entry point
of its group, so that an installed package adds one without a fork (an entry point names a
module, `myprov = my_package.provider`, whose import registers it). Discovery waits for the
first lookup: importing a package never imports its members, and a member's module may
import the package that holds its registry. Two members under one name are refused."""

from __future__ import annotations

import importlib
import pkgutil
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata
from typing import TypeVar

T = TypeVar("T")
M = TypeVar("M")


class DuplicateName(ValueError):
    """Two members of one registry under one name."""


class Registry(Mapping[str, T]):
    """Members by name, in the order they registered (a package's modules in name order,
    then entry points), read as a mapping."""

    def __init__(self, kind: str, *, package: str | None = None, group: str | None = None):
        self.kind = kind  # what a member is, for messages: "model provider"
        self.package = package  # its modules are imported on the first lookup
        self.group = group  # entry-point group loaded after them
        self._members: dict[str, T] = {}
        self._origins: dict[str, str] = {}  # name -> the module that registered it
        self._discovered = False
        self._discovering = False
        self._lock = threading.RLock()  # held while discovering: re-entrant for that thread

    def add(self, name: str, member: T, *, origin: str = "") -> T:
        with self._lock:
            if name in self._members:
                first = self._origins.get(name) or "one module"
                raise DuplicateName(
                    f"{self.kind} {name!r} is registered twice: by {first} and by "
                    f"{origin or 'another module'}"
                )
            self._members[name] = member
            self._origins[name] = origin
        return member

    def register(self, name: str) -> Callable[[M], M]:
        """A decorator adding what it wraps under `name`."""

        def wrap(member: M) -> M:
            self.add(name, member, origin=getattr(member, "__module__", ""))  # type: ignore[arg-type]
            return member

        return wrap

    def discover(self) -> None:
        """Import the package's modules and the group's entry points, once. Another thread
        waits until it is done; the discovering thread, re-entering from a member's module,
        reads what is there so far."""
        if self._discovered:
            return
        with self._lock:
            if self._discovered or self._discovering:
                return
            self._discovering = True
            try:
                self._import_members()
            finally:
                self._discovering = False
            self._discovered = True  # not after a failure: the next lookup meets it again

    def _import_members(self) -> None:
        if self.package:
            package = importlib.import_module(self.package)
            modules = [
                info.name
                for info in pkgutil.iter_modules(package.__path__, f"{self.package}.")
                if not info.name.rsplit(".", 1)[-1].startswith("_")
            ]
            for name in modules:
                importlib.import_module(name)
            self._in_module_order(modules)
        if self.group:
            for point in metadata.entry_points(group=self.group):
                try:
                    point.load()
                except DuplicateName:
                    raise
                except Exception as exc:  # an outside package's fault: the rest still work
                    warnings.warn(
                        f"{self.group} entry point {point.name} = {point.value} failed to "
                        f"load ({type(exc).__name__}: {exc}); its {self.kind}s are missing",
                        stacklevel=3,
                    )

    def _in_module_order(self, modules: list[str]) -> None:
        """The package's members in its modules' name order, whatever imported one of them
        first (a module imported before discovery registers its member ahead of the rest);
        members from elsewhere after them, in the order they came."""
        rank = {module: i for i, module in enumerate(modules)}
        with self._lock:
            names = sorted(
                self._members, key=lambda n: rank.get(self._origins.get(n, ""), len(rank))
            )
            self._members = {n: self._members[n] for n in names}

    def origin(self, name: str) -> str:
        """The module that registered `name` ("" when not told)."""
        self.discover()
        return self._origins[name]

    @contextmanager
    def scoped(self) -> Iterator[Registry[T]]:
        """Members added inside the block are gone after it (for tests)."""
        self.discover()
        with self._lock:
            members, origins = dict(self._members), dict(self._origins)
        try:
            yield self
        finally:
            with self._lock:
                self._members, self._origins = members, origins

    def __getitem__(self, name: str) -> T:
        self.discover()
        return self._members[name]

    def __iter__(self) -> Iterator[str]:
        self.discover()
        return iter(list(self._members))

    def __len__(self) -> int:
        self.discover()
        return len(self._members)

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._members

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {sorted(self._members)})"
