"""Names a package exports, imported at first use (PEP 562), so that `import kinematica` and a
CLI call pay only for the modules they touch (issue 12: `import kinematica` ≤ 0.15 s).

A package lists where each public name lives and hands `attach`'s function to Python as its
module-level ``__getattr__``; the first access imports the module, and the value is then stored
on the package, so every later access is a plain attribute. Type checkers and editors see the
same names through the package's ``if TYPE_CHECKING:`` imports.

>>> from json.decoder import JSONDecoder
>>> attach("json", {"JSONDecoder": "decoder"})("JSONDecoder") is JSONDecoder  # json's own name, kept
True
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def attach(package: str, names: dict[str, str], modules: tuple[str, ...] = ()) -> Callable[[str], Any]:
    """The ``__getattr__`` of `package`: ``names`` maps a public name to ``"module"`` (the name of
    the same name in that submodule, relative to the package) or ``"module:attribute"``;
    ``modules`` are submodules reached as attributes. An unknown name raises AttributeError, as
    for any module."""
    def __getattr__(name: str) -> Any:
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(f"{package}.{module}" if module else package), attribute or name)
        setattr(sys.modules[package], name, value)  # once: the next access finds it
        return value
    return __getattr__


def table(module: str, names: str | list[str]) -> dict[str, str]:
    """``{name: module}`` for names that live under their own name in one submodule.

    >>> table("fk", "fk fk_frames")
    {'fk': 'fk', 'fk_frames': 'fk'}
    """
    return dict.fromkeys(names.split() if isinstance(names, str) else names, module)
