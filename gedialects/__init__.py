"""gedialects: GE (Ascend Graph Engine) ideas as xDSL dialects.

`register_all(ctx)` makes every gedialects dialect available to an xDSL `Context` (loaded
lazily, on first use); the dialect objects themselves are importable by name
(`from gedialects import Graph`), each loaded only when asked for.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.ir import Dialect

    # what `__getattr__` below loads on first access, for type checkers
    from gedialects.ascend import Ascend
    from gedialects.graph import Graph
    from gedialects.multibatch import Multibatch
    from gedialects.partition import Partition

DIALECTS: dict[str, tuple[str, str]] = {
    "graph": ("gedialects.graph", "Graph"),
    "partition": ("gedialects.partition", "Partition"),
    "multibatch": ("gedialects.multibatch", "Multibatch"),
    "ascend": ("gedialects.ascend", "Ascend"),
}
"""Dialect name -> (module, attribute) of its `Dialect` object."""

XDSL_DIALECTS: dict[str, tuple[str, str]] = {
    "builtin": ("xdsl.dialects.builtin", "Builtin"),
    "func": ("xdsl.dialects.func", "Func"),
    "arith": ("xdsl.dialects.arith", "Arith"),
    "test": ("xdsl.dialects.test", "Test"),
}
"""The stock xDSL dialects that `ge-opt`, `ge-run` and `make_context` add to ours."""

__all__ = [
    "DIALECTS",
    "XDSL_DIALECTS",
    "Ascend",
    "Graph",
    "Multibatch",
    "Partition",
    # loaded by __getattr__; naming the run-time layer here, even for checkers, would break
    # the layer contract (every layer imports this package)
    "Session",  # pyright: ignore[reportUnsupportedDunderAll]
    "dialect_factories",
    "make_context",
    "register_all",
]


# A library logs and leaves the output to its user (the tools' `-v`/`-q`, an application's own
# logging set-up): without a handler of theirs, nothing of ours is printed.
logging.getLogger("gedialects").addHandler(logging.NullHandler())


def _install_lexer_workaround() -> None:
    from gedialects.lexer_workaround import install

    install()


def _load(module: str, attr: str) -> Callable[[], Dialect]:
    return lambda: getattr(importlib.import_module(module), attr)


def dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Name -> lazy factory of each gedialects dialect, as `Context.register_dialect` wants.

    Every way in (`register_all`, `make_context`, `ge-opt`, the `xdsl.universe` entry point)
    comes through here, so this also puts `gedialects.exact_text` in place: dense literals then
    parse and print exactly even in text that uses none of our dialects, and
    `gedialects.lexer_workaround`: xDSL's lexer stays linear on unterminated strings.
    """
    from gedialects import exact_text

    exact_text.install()
    _install_lexer_workaround()
    return {name: _load(module, attr) for name, (module, attr) in DIALECTS.items()}


def xdsl_dialect_factories() -> dict[str, Callable[[], Dialect]]:
    _install_lexer_workaround()
    return {name: _load(module, attr) for name, (module, attr) in XDSL_DIALECTS.items()}


def make_context() -> Context:
    """A `Context` with our dialects plus builtin, func, arith and test, all loaded lazily."""
    from xdsl.context import Context

    _install_lexer_workaround()
    ctx = Context()
    for name, factory in xdsl_dialect_factories().items():
        ctx.register_dialect(name, factory)
    register_all(ctx)
    return ctx


def register_all(ctx: Context) -> None:
    """Registers every gedialects dialect that `ctx` does not know yet."""
    known = set(ctx.registered_dialect_names)
    for name, factory in dialect_factories().items():
        if name not in known:
            ctx.register_dialect(name, factory)


LAZY_ATTRIBUTES: dict[str, tuple[str, str]] = {"Session": ("gedialects.session", "Session")}
"""Other public names, imported on first access so that `import gedialects` stays cheap."""


def __getattr__(name: str) -> Any:
    if name in LAZY_ATTRIBUTES:
        module, attr = LAZY_ATTRIBUTES[name]
        return getattr(importlib.import_module(module), attr)
    for module, attr in DIALECTS.values():
        if attr == name:
            return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'gedialects' has no attribute '{name}'")
