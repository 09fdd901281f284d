"""Reading request fields and writing errors for the protocol `kvfuzz-allocator/1`."""
from __future__ import annotations

import math
import traceback
from pathlib import Path

from .errors import ProtocolError

# An error message on the wire stays one readable line.
kErrorCharsMax = 2000
# Integers the adapter turns into int64 tensors.
kInt64Min, kInt64Max = -(1 << 63), (1 << 63) - 1


def is_int(value) -> bool:
    """A JSON integer (true/false are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    return (is_int(value) or isinstance(value, float)) and math.isfinite(value)


def field(request: dict, name: str, op: str = None):
    if name not in request:
        raise ProtocolError(f"{op or request.get('op')} needs the field {name!r}")
    return request[name]


def number(request: dict, name: str, op: str = None):
    """A JSON number, passed to SGLang as it is (an int, or a float such as 4.5)."""
    value = field(request, name, op)
    if not is_number(value):
        raise ProtocolError(f"{op or request.get('op')}: {name} must be a number, got {value!r}")
    return value


def boolean(config: dict, name: str, op: str) -> bool:
    value = config.get(name)
    if not isinstance(value, bool):
        raise ProtocolError(f"{op}: config.{name} must be true or false, got {value!r}")
    return value


def int_list(request: dict, name: str, where: str = None) -> list:
    """A JSON array of integers in int64 range (the protocol's arrays are integers)."""
    value = field(request, name) if where is None else request.get(name)
    label = f"{request.get('op', where)}: {name}" if where is None else f"{where}: {name}"
    if not isinstance(value, list):
        raise ProtocolError(f"{label} must be an array of integers")
    for item in value:
        if not is_int(item) or not kInt64Min <= item <= kInt64Max:
            raise ProtocolError(f"{label} holds {item!r}, not an int64 integer")
    return value


def json_number(value):
    """A value SGLang returned, as a JSON number: exact ints stay ints; anything else is shown."""
    if hasattr(value, "item"):
        value = value.item()
    if is_int(value):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise TypeError(f"SGLang returned {value!r}, which is not a finite number")


def describe_exception(error: BaseException, tree_root: Path | None) -> str:
    """`Name: message (at file.py:line in function)`: the innermost frame in SGLang's tree, else the innermost."""
    message = str(error).replace("\n", " ").strip() or "(no message)"
    frames = traceback.extract_tb(error.__traceback__)
    where = None
    if tree_root is not None:
        inside = [f for f in frames if _is_under(f.filename, tree_root)]
        where = inside[-1] if inside else None
    if where is None and frames:
        where = frames[-1]
    at = f" (at {Path(where.filename).name}:{where.lineno} in {where.name})" if where is not None else ""
    text = f"{type(error).__name__}: {message}{at}"
    return text if len(text) <= kErrorCharsMax else text[: kErrorCharsMax - 1] + "…"


def _is_under(filename: str, root: Path) -> bool:
    try:
        Path(filename).resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False
