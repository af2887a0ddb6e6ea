"""Numbers read from a service's environment, each refused with a sentence that names the
variable and says what it takes (ValueError): ``match_bus.service.configured`` turns it into
one line on stderr and a non-zero exit before anything starts, never a traceback
(docs/operations.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TypeVar

N = TypeVar("N", int, float)


def whole(
    env: Mapping[str, str], name: str, default: int, minimum: int | None = None, unit: str = ""
) -> int:
    """``name`` as a whole number (``default`` when unset or blank), at least ``minimum``."""
    return _read(env, name, default, int, "a whole number", minimum, unit)


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
    return _read(env, name, default, float, "a number", minimum, unit, above)


def _read(
    env: Mapping[str, str],
    name: str,
    default: N,
    parse: Callable[[str], N],
    kind: str,
    minimum: float | None,
    unit: str,
    above: bool = False,
) -> N:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value: N | None = parse(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or _low(value, minimum, above):
        said = f"{kind} of {unit}" if unit else kind  # nan and inf are no seconds either
        if minimum is not None:
            said += f" above {minimum:g}" if above else f", {minimum:g} or more"
        raise ValueError(f"{name} must be {said}, not {text!r}")
    return value


def _low(value: float, minimum: float | None, above: bool) -> bool:
    if minimum is None:
        return False
    return value <= minimum if above else value < minimum
