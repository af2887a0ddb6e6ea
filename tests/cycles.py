"""What a piece of code leaves to the garbage collector's cycle finder.

Most objects are freed by their reference counts the moment they are dropped; only those in a
reference cycle wait for a collection, and the records a cycle holds wait with it, until the
slowest generation's (docs/performance.md, "The garbage collector"). A test drops what it made,
then asks which objects of the types it names only a collection would free."""

from __future__ import annotations

import gc


def collect_now() -> None:
    """Free whatever earlier code left to the collector, so that what follows is counted alone."""
    gc.collect()


def left_to_collector(*types: type) -> list[object]:
    """Objects of ``types`` that nothing but the cycle collector would free now (each found by a
    full collection told to keep, not free, what it finds)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = [o for o in gc.garbage if isinstance(o, types)]
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
    return found
