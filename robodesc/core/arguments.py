"""The one rule for arguments of the wrong kind given to robodesc's Python functions.

A wrong argument is a programming mistake, not bad input: it raises `InvalidArgument` (a
`TypeError` and a `RobodescError`) naming the argument and what it takes, from here, before the
value reaches difflib, numpy, pluggy or the file system, whose own errors would name neither.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import InvalidArgument


def kind(value: Any) -> str:
    """How a wrong value is named in a message: its type, and a short excerpt of its value."""
    if value is None:
        return "None"
    text = repr(value)
    return type(value).__name__ + (f" {text[:40]}…" if len(text) > 40 else f" {text}")


def name_argument(value: Any, argument: str, what: str = "a name") -> str:
    """`value` when it is text; else an `InvalidArgument` saying `argument` takes `what` (str)."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{argument} must be {what} (str), not {kind(value)}", construct=argument)
    return value


def flag_argument(value: Any, argument: str) -> bool:
    """`value` when it is True or False: a flag given a path or a list most likely belongs elsewhere."""
    if not isinstance(value, bool):
        raise InvalidArgument(f"{argument} must be True or False, not {kind(value)}", construct=argument)
    return value


def path_argument(value: Any, argument: str, suggestion: str | None = None) -> str:
    """`value` (str or os.PathLike) as a str path; bytes, None and numbers are refused, and so is a
    NUL character, which no file name can hold (the OS would refuse it with a bare ValueError)."""
    path = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(path, str):
        raise InvalidArgument(
            f"{argument} must be a path (str or pathlib.Path), not {kind(value)}",
            construct=argument,
            suggestion=suggestion or ("decode it first: os.fsdecode(path)" if isinstance(path, bytes) else None),
        )
    if "\0" in path:
        raise InvalidArgument(
            f"{argument} holds a NUL character (at {path.index(chr(0))}), which no file name can hold: {path[:60]!r}",
            construct=argument,
        )
    return path


def list_argument(value: Any, argument: str, what: str) -> list[Any]:
    """The items of `value`, a list or tuple (or other iterable, not a single str); `what` says what
    the items are, for the message."""
    if type(value) is tuple or type(value) is list:  # (as nearly always: no ABC checks on every load)
        return list(value)
    if isinstance(value, (str, bytes, os.PathLike)):
        raise InvalidArgument(
            f"{argument} must be a list of {what}, not a single {type(value).__name__}",
            construct=argument,
            suggestion=f"{argument}=[{value!r}]",
        )
    if value is None or not isinstance(value, Iterable):
        raise InvalidArgument(
            f"{argument} must be a list of {what}, not {kind(value)}",
            construct=argument,
            suggestion=f"{argument}=() for none",
        )
    return list(value)


def paths_argument(value: Any, argument: str) -> list[str]:
    """A list of folder paths (`search_paths`), each checked as `path_argument`."""
    items = list_argument(value, argument, "folders (str or pathlib.Path)")
    return [path_argument(item, f"{argument}[{i}]") for i, item in enumerate(items)]


def names_argument(value: Any, argument: str, what: str = "names") -> list[str]:
    """A list of names (`disable_plugins`), each a str."""
    items = list_argument(value, argument, what + " (str)")
    return [name_argument(item, f"{argument}[{i}]") for i, item in enumerate(items)]


def args_argument(value: Any, argument: str = "args") -> dict[str, str]:
    """`args` (arguments for formats that take them, such as xacro's `<xacro:arg>`) as a new dict of
    str to str; None is no arguments. A number given as a value is refused rather than turned into
    text: `{"scale": 0.5}` would reach the format as "0.5" on one run and "0.50" on the next."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgument(
            f"{argument} must be a mapping of names to values (str to str), not {kind(value)}",
            construct=argument,
            suggestion=f'{argument}={{"name": "value"}}',
        )
    out: dict[str, str] = {}
    for key, item in value.items():
        name_argument(key, f"{argument} keys", "an argument name")
        if not isinstance(item, str):
            raise InvalidArgument(
                f"{argument}[{key!r}] must be text (str), not {kind(item)}",
                construct=argument,
                suggestion=f"{argument}[{key!r}]=str(value)",
            )
        out[key] = item
    return out
