"""`Record`, the base of every model dataclass: `==` that compares numpy arrays element-wise
(never "the truth value of an array is ambiguous") and a short, one-line repr (a robot's model
prints as a summary, not as 31 kB of arrays)."""

from __future__ import annotations

import os
from copy import deepcopy
from dataclasses import MISSING, fields
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .errors import Location


def values_equal(a: Any, b: Any) -> bool:
    """Whether two field values are equal, looking into numpy arrays, lists, tuples and dicts.

    Arrays are equal when they have the same shape and the same values (the dtype is not compared);
    NaN equals NaN, in arrays and in plain floats, so that a copy of anything compares equal to it.
    Everything else compares with ``==``.
    """
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _arrays_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            isinstance(a, list) == isinstance(b, list)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # both NaN
    return bool(a == b)


def _arrays_equal(a: Any, b: Any) -> bool:
    for value in (a, b):
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex, list, tuple)):
            return False  # None, a string, an object: never equal to an array
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return False
    try:
        return bool(np.array_equal(x, y, equal_nan=True))
    except TypeError:  # equal_nan needs numbers
        return bool(np.array_equal(x, y))


class Record:
    """Base of the model's dataclasses (declared with ``@dataclass(eq=False, repr=False)``).

    * ``==`` compares the fields that take part in comparison with `values_equal`, so numpy
      arrays compare element-wise and never raise "truth value of an array is ambiguous".
      Objects of different classes are never equal. Records stay unhashable: they are mutable.
    * ``repr`` is short: arrays of up to 16 numbers inline and rounded, larger ones by shape;
      lists of records by count; long strings and lists cut; fields at their default left out.
    * Copies (`copy.copy`, `copy.deepcopy`) and pickles of any protocol carry every field, slotted
      or not; a deep copy keeps what the original shares (one Shape in `visuals` and `collisions`).
    """

    # No instance dictionary here, so that a slotted subclass has none either (``slots=True``: smaller
    # objects, each field a fixed slot, for the thousands of records a large model holds).
    __slots__ = ()

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Any]]

    def _compared(self) -> list[Any]:
        """The values `==` compares, in order (a class may add derived ones)."""
        return [getattr(self, f.name) for f in fields(self) if f.compare]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return all(values_equal(a, b) for a, b in zip(self._compared(), other._compared()))

    # Defining __eq__ sets __hash__ to None, as a dataclass with eq=True and frozen=False has.

    def _state(self) -> dict[str, Any]:
        """Every field by name (a slot never set left out), and any attribute of an unslotted record."""
        state = {}
        for name in self.__dataclass_fields__:
            try:
                state[name] = getattr(self, name)
            except AttributeError:  # a record made without __init__
                pass
        state.update(getattr(self, "__dict__", ()))
        return state

    # Copies and pickles. A slotted record has no `__dict__` to copy whole: copy's generic path would
    # gather its slots into a state, deep-copy that, and set them back through a Python loop. These copy
    # the fields directly (a deep copy of a model is quicker than before the records were slotted, a
    # shallow copy of a record with many fields a little slower). Pickle protocols 0 and 1 cannot save
    # slots at all: for them `__reduce_ex__` rebuilds the record from its fields.

    def __copy__(self) -> Any:
        return _rebuilt(type(self), self._state())

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        record: Any = object.__new__(type(self))
        memo[id(self)] = record  # before the fields: a field may lead back to this record
        for name, value in self._state().items():
            object.__setattr__(record, name, deepcopy(value, memo))
        return record

    def __reduce_ex__(self, protocol: Any) -> Any:
        if isinstance(protocol, int) and protocol < 2:
            return _rebuilt, (type(self), self._state())
        return object.__reduce_ex__(self, protocol)

    def __repr__(self) -> str:
        parts = []
        for f in fields(self):
            if not f.repr:
                continue
            value = getattr(self, f.name)
            if f.default is not MISSING and values_equal(value, f.default):
                continue
            if f.default_factory is not MISSING and values_equal(value, f.default_factory()):
                continue
            parts.append(f"{f.name}={brief(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"


#: What `unshared_copy` copies: the values a caller can change in place.
_CHANGEABLE = (np.ndarray, dict, list, Record)


def unshared_copy(value: Any) -> Any:
    """A copy of `value` (an array, list, dict or record, such as a shape) that shares nothing a caller
    may change in place with it: arrays copied, records, lists and dicts copied in turn. Strings,
    numbers, locations and an `Extra`'s XML source stay shared (none changes in place).

    Unlike `copy.deepcopy` it copies no XML element behind an `Extra`'s source and keeps no memo: for
    records that nest a fixed few levels deep (a shape, its extras, an `Extra`, its attributes), as a
    reader's are, so the recursion is bounded. A reader that places one parsed record several times
    (an SDF model included twice) gives every later placement such a copy."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {key: unshared_copy(item) if isinstance(item, _CHANGEABLE) else item for key, item in value.items()}
    if isinstance(value, list):
        return [unshared_copy(item) if isinstance(item, _CHANGEABLE) else item for item in value]
    # a record: its fields set once each, copied or not (a model's records are slotted and have every
    # field set; `_state` and `_rebuilt` would make a dict per record, a third of the time of a copy)
    record: Any = object.__new__(type(value))
    for name in value.__dataclass_fields__:
        held = getattr(value, name)
        object.__setattr__(record, name, unshared_copy(held) if isinstance(held, _CHANGEABLE) else held)
    return record


def _rebuilt(cls: type, state: dict[str, Any]) -> Any:
    """A record of class `cls` with the attributes `state` (see `Record.__reduce_ex__`)."""
    record: Any = object.__new__(cls)
    for name, value in state.items():
        object.__setattr__(record, name, value)
    return record


_MAX_INLINE_ARRAY = 16
_MAX_ITEMS = 4
_MAX_TEXT = 60


def brief(value: Any) -> str:
    """A short, one-line text for a field value in a repr."""
    if isinstance(value, np.ndarray):
        return _brief_array(value)
    if isinstance(value, Enum):
        return repr(value.value)
    if isinstance(value, str):
        if len(value) > _MAX_TEXT:
            half = _MAX_TEXT // 2 - 2
            value = f"{value[:half]}...{value[-half:]}"
        return repr(value)
    if isinstance(value, Location):  # file name and line, without the folder and the element path
        short = Location(os.path.basename(value.file) if value.file else None, value.line, value.column)
        return brief(str(short) or value.element or "")
    if isinstance(value, (list, tuple)):
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        if not value:
            return open_ + close
        kinds = {type(item) for item in value}
        if all(isinstance(item, Record) for item in value):
            what = kinds.pop().__name__ if len(kinds) == 1 else "records"
            return f"<{len(value)} {what}>"
        shown = ", ".join(brief(item) for item in value[:_MAX_ITEMS])
        if len(value) > _MAX_ITEMS:
            shown += f", ... {len(value) - _MAX_ITEMS} more"
        elif len(value) == 1 and isinstance(value, tuple):
            shown += ","
        return open_ + shown + close
    if isinstance(value, dict):
        if len(value) > _MAX_ITEMS:
            return f"<{len(value)} items>"
        return "{" + ", ".join(f"{brief(k)}: {brief(v)}" for k, v in value.items()) + "}"
    text = repr(value)
    if len(text) > 2 * _MAX_TEXT and not isinstance(value, Record):
        text = text[: 2 * _MAX_TEXT - 3] + "..."
    return text


def _brief_array(array: np.ndarray) -> str:
    if array.size > _MAX_INLINE_ARRAY or array.ndim > 2 or array.dtype.kind not in "biuf":
        return f"<array {array.shape} {array.dtype}>"
    if array.ndim == 0:
        return _brief_number(array.item())
    if array.ndim == 1:
        return "[" + ", ".join(_brief_number(x) for x in array.tolist()) + "]"
    return "[" + ", ".join(_brief_array(row) for row in array) + "]"


def _brief_number(x: Any) -> str:
    if isinstance(x, float):
        return "0" if abs(x) < 1e-12 else format(x, ".4g")  # rounding noise such as cos(pi/2) reads as 0
    return repr(x)
