"""Walking nested input without Python recursion.

Readers follow the nesting of what they read: bodies in bodies, default classes in default classes,
files included by included files. Written as recursion, a description nested a few hundred levels
deep, which the reference implementations read (TinyXML2 allows 500), exhausts Python's stack.

`run` drives such a walk written as generators instead. Where a step would call itself (or another
step), it yields the generator of the nested step and is sent back that step's result::

    def count(element) -> Step[int]:
        total = 1
        for child in element:
            total += yield count(child)
        return total

    run(count(root))

`run` keeps the pending steps in a list, so the depth of the input costs heap, not stack. An
exception raised in a nested step is thrown into the step that yielded it, exactly as it would
propagate through calls, so ``try``/``finally`` and ``except`` in the steps keep their meaning.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

T = TypeVar("T")

#: A step of a walk: a generator that yields nested steps and returns its result.
Step = Generator["Step[Any]", Any, T]


def run(step: Step[T]) -> T:
    """The result of `step`, running the steps it yields (and those they yield) one after another."""
    stack: list[Step[Any]] = [step]
    value: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            nested = top.send(value) if error is None else top.throw(error)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            value, error = done.value, None
            continue
        except BaseException as exc:  # noqa: BLE001 - handed to the step below, as a call would raise it
            stack.pop()
            if not stack:
                raise
            value, error = None, exc
            continue
        stack.append(nested)
        value, error = None, None
