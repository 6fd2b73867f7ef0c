"""Strict keywords: a public function called with a keyword it does not take says so in its own
name and lists what it takes, instead of passing the keyword on until something deep inside fails
(``km.from_poe(M, S, frame="space")`` used to end in ``Robot.__init__() got an unexpected keyword
argument 'frame'``).

`strict` wraps a function in one with the same parameters plus a catch-all for the rest, written
from the function's code object as `takes_robot`'s wrapper is (no ``*args, **kwargs`` packing on
the way in); the catch-all is empty on every good call, so the cost is one empty dict (~40 ns).
A function that takes ``**options`` of its own checks them itself with `refuse`.

>>> @strict
... def line(p0, p1, *, steps=50, dt=None):
...     return steps
>>> line(0, 1, step=3)
Traceback (most recent call last):
...
kinematica.errors.InputTypeError: line(): unknown keyword argument 'step' (did you mean 'steps'?); it takes p0, p1, steps, dt
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from .errors import InputTypeError

F = TypeVar("F", bound=Callable[..., Any])
_CATCH_ALL = "_unknown_keywords"


def accepted(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The names `fn` takes as keywords (positional-or-keyword and keyword-only), `self`/`cls`
    of a method and private ones (a leading underscore) left out."""
    params = inspect.signature(fn).parameters.values()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name[:1] != "_"]
    return tuple(names[1:] if names[:1] in (["self"], ["cls"]) else names)


def refuse(where: str, given: Iterable[str], takes: Sequence[str]) -> InputTypeError:
    """The error for the keywords `given` that `where` (e.g. ``"from_poe()"``) does not take:
    each named, with the nearest accepted name when one is close, then everything it takes."""
    unknown = sorted(given)
    hints = [difflib.get_close_matches(k, takes, n=1) for k in unknown]
    said = ", ".join(repr(k) + (f" (did you mean {h[0]!r}?)" if h else "") for k, h in zip(unknown, hints, strict=True))
    plural = "s" if len(unknown) > 1 else ""
    return InputTypeError(f"{where}: unknown keyword argument{plural} {said}; it takes "
                          f"{', '.join(takes) if takes else 'no keyword arguments'}")


def _refuser(fn: Callable[..., Any]) -> Callable[[dict], InputTypeError]:
    def build(unknown: dict) -> InputTypeError:  # made on the error path only: signature() is slow
        return refuse(f"{fn.__qualname__}()", unknown, accepted(fn))
    return build


def exact_wrapper(fn: Callable[..., Any], first: str | None = None,
                  space: dict[str, Any] | None = None) -> Callable[..., Any] | None:
    """`def wrapper(a, b=_d1, *, k=_k_k, **_unknown_keywords): return fn(<first>, b, k=k)` for
    fn's own parameters (read from its code object: `inspect.signature` costs more at import),
    the defaults passed by reference; `first` is an expression replacing the first argument
    (names it uses in `space`). Unless fn takes ``**kwargs`` itself, an unknown keyword is
    refused by name before fn runs. None when fn is not a plain Python function, has
    positional-only parameters or a parameter named like one of the wrapper's globals."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_posonlyargcount or (first is not None and code.co_argcount == 0):
        return None
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:npos + nkw + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
    # the wrapper's frames belong to fn's module: code that looks for the first frame outside the
    # package (a warning attributed to the user's line) passes over them as over fn's own
    space = {"__name__": fn.__module__, "fn": fn, "_refuse": _refuser(fn), **(space or {})}
    if any(name in space or name == _CATCH_ALL for name in names):
        return None
    defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
    head, call = [], []
    for i, name in enumerate(names[:npos]):
        j = i - (npos - len(defaults))  # index into the defaults, which end the positional list
        if j >= 0:
            space[f"_d{i}"] = defaults[j]
        head.append(f"{name}=_d{i}" if j >= 0 else name)
        call.append(name)
    rest = names[npos + nkw:]
    if code.co_flags & 4:  # *args
        head.append("*" + rest[0])
        call.append("*" + rest[0])
    elif nkw:
        head.append("*")
    for name in names[npos:npos + nkw]:
        if name in kwdefaults:
            space[f"_k_{name}"] = kwdefaults[name]
        head.append(f"{name}=_k_{name}" if name in kwdefaults else name)
        call.append(f"{name}={name}")
    check = ""
    if code.co_flags & 8:  # **kwargs: fn's own to check
        head.append("**" + rest[-1])
        call.append("**" + rest[-1])
    else:
        head.append("**" + _CATCH_ALL)
        check = f"    if {_CATCH_ALL}:\n        raise _refuse({_CATCH_ALL})\n"
    if first is not None:
        call[0] = first
    source = f"def wrapper({', '.join(head)}):\n{check}    return fn({', '.join(call)})\n"
    exec(compile(source, f"<wrapper of {fn.__module__}.{fn.__qualname__}>", "exec"), space)  # names it in tracebacks
    return space["wrapper"]


def strict(fn: F) -> F:
    """Decorator: `fn` refuses a keyword it does not take, naming itself and what it takes (see
    the module). For a function taking ``**kwargs`` of its own it changes nothing."""
    wrapper = exact_wrapper(fn) or _generic_wrapper(fn)
    return functools.wraps(fn)(wrapper)  # type: ignore[return-value]


def _generic_wrapper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The `strict` wrapper of a signature `exact_wrapper` cannot copy: binds every call."""
    sig, build = inspect.signature(fn), _refuser(fn)

    def wrapper(*args, **kwargs):
        try:
            sig.bind(*args, **kwargs)
        except TypeError:
            unknown = set(kwargs) - set(accepted(fn))
            if unknown:
                raise build(dict.fromkeys(unknown)) from None
        return fn(*args, **kwargs)
    return wrapper


__all__ = ["accepted", "exact_wrapper", "refuse", "strict"]
