"""Numbers read from a service's environment, each refused with a sentence that names the
variable and says what it takes (ValueError): a service's ``main`` turns it into one line on
stderr and a non-zero exit before anything starts, never a traceback (docs/operations.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping


def whole(
    env: Mapping[str, str], name: str, default: int, minimum: int | None = None, unit: str = ""
) -> int:
    """``name`` as a whole number (``default`` when unset or blank), at least ``minimum``."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or (minimum is not None and value < minimum):
        raise ValueError(f"{name} must be {_what('a whole number', minimum, unit)}, not {text!r}")
    return value


def decimal(
    env: Mapping[str, str],
    name: str,
    default: float,
    minimum: float | None = None,
    unit: str = "",
    above: bool = False,
) -> float:
    """``name`` as a finite number (``default`` when unset or blank), at least ``minimum``
    (above it with ``above``)."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is not None and minimum is not None:
        low = value <= minimum if above else value < minimum
    else:
        low = False
    if value is None or not math.isfinite(value) or low:  # nan and inf are no seconds
        what = _what("a number", minimum, unit, above)
        raise ValueError(f"{name} must be {what}, not {text!r}")
    return value


def _what(kind: str, minimum: float | None, unit: str, above: bool = False) -> str:
    said = f"{kind} of {unit}" if unit else kind
    if minimum is None:
        return said
    return f"{said} above {minimum:g}" if above else f"{said}, {minimum:g} or more"
