"""``make mutation``: mutmut over every game's rules package (``libs/match_rules``) and the bus's
fenced append (``libs/match_bus/jetstream.py``), then one line per target:

    mutation: killed=<n> survived=<n> score=<killed/total>        (the rules packages)
    mutation (bus): killed=<n> survived=<n> score=<killed/total>  (the fenced append)

and every survivor by name (``build/mutation``: ``../../.venv/bin/mutmut show NAME`` shows one).

Why a staging directory: mutmut 3 runs the tests against its copy of the code (``mutants/``)
and puts ``mutants/src`` first on ``sys.path``, naming modules from their path under ``src/``.
Our packages live under ``libs/`` and reach ``sys.path`` through the virtualenv's .pth, so the
copy would never be imported; ``build/mutation/src`` holds the two packages under test (copied),
and everything else (``match.v1``, the client, the launcher) is imported from ``libs/`` as usual.

Counting: a mutant the tests fail on, or that runs into the time limit, is killed; one they pass
on, or that no test reaches, survived. Mutants marked ``# pragma: no mutate`` (each with the
reason it is equivalent) are not made. Not part of ``make test``: it takes a long while.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "build" / "mutation"
TESTS = ("tests/rules", "tests/games", "tests/bus/test_fence.py")
CONFIG = """
[tool.mutmut]
source_paths = ["src/match_rules", "src/match_bus"]
only_mutate = ["src/match_rules/*", "src/match_bus/jetstream.py"]
pytest_add_cli_args = [
    "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "match_mutation.plugin", "-q", "-x",
    "-k", {slow},
]
pytest_add_cli_args_test_selection = {tests}
also_copy = ["docs"]
timeout_multiplier = {timeout_multiplier}
"""
# Left out of the mutation run: the slowest property tests (whole games by the hundred, fresh
# interpreters, statistics over thousands of deals), which would cost each surviving mutant of
# the race's core most of two minutes. Their cheaper unit tests stay in; they run in make test.
SLOW = (
    "test_in_every_game_nothing_leaks_counts_hold_and_the_game_ends",
    "fresh_interpreter",
    "fresh_process",
    "test_folding_the_events_read_back_from_the_wire",
    "not_grossly_skewed",
    "test_forgets_at_its_rate",
    "test_the_rule_gives_the_seeds_two_values",
)
# mutmut stops a mutant's tests after (their clean time + 1 s) x 2 x this many CPU seconds and
# counts it killed (a mutant that loops for ever). mutmut's default, 15, let each of those cost a
# worker two and a half minutes; the tests run fastest first, so a mutant's run takes its clean
# time at most, and six times that is still room enough on a busy machine (CPU time, not wall).
TIMEOUT_MULTIPLIER = 3
KILLED = {"killed", "timeout"}
SURVIVED = {"survived", "no tests", "suspicious", "segfault"}
BUS = "match_bus."
# The fenced append and what it reads to tell "our earlier try landed" from a conflict; the rest
# of jetstream.py (connecting, buckets, reading whole streams) is mutated but not counted.
FENCE = tuple(
    f"match_bus.jetstream.xǁTableLogǁ{name}__mutmut_"
    for name in ("append", "_is_ours", "_last_message")
)
CACHE = shutil.ignore_patterns("__pycache__", "*.pyc")
COPIED = ("tests", "docs")


def stage() -> None:
    """Copy what mutmut mutates and tests into ``build/mutation`` (the mutmut state in
    ``build/mutation/mutants`` is kept: a second run re-tests only what changed)."""
    src = STAGE / "src"
    for package in ("match_rules", "match_bus"):
        target = src / package
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "libs" / package, target, ignore=CACHE)
    for folder in COPIED:  # the tests, and the test vectors they read from docs/
        target = STAGE / folder
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / folder, target, ignore=CACHE)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    selection = "[" + ", ".join(f'"{t}"' for t in TESTS) + "]"
    slow = '"' + " and ".join(f"not {name}" for name in SLOW) + '"'
    (STAGE / "pyproject.toml").write_text(
        pyproject + CONFIG.format(tests=selection, slow=slow, timeout_multiplier=TIMEOUT_MULTIPLIER)
    )


def mutmut(*args: str) -> subprocess.CompletedProcess[str]:
    binary = Path(sys.executable).parent / "mutmut"
    return subprocess.run(
        [str(binary), *args], cwd=STAGE, text=True, capture_output=args[0] == "results"
    )


def statuses(results: str) -> dict[str, str]:
    """``mutmut results --all true``: one ``    name: status`` line per mutant."""
    out = {}
    for line in results.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            out[name] = status
    return out


def line(label: str, found: dict[str, str]) -> str:
    counts = Counter(found.values())
    killed = sum(counts[s] for s in KILLED)
    survived = sum(counts[s] for s in SURVIVED)
    total = killed + survived
    score = killed / total if total else 0.0
    return f"{label}: killed={killed} survived={survived} score={score:.3f}"


def survivors(found: dict[str, str]) -> Iterable[str]:
    return (f"  {name}: {status}" for name, status in sorted(found.items()) if status in SURVIVED)


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="make mutation", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("mutants", nargs="*", help="only these mutants (names from a run)")
    args = parser.parse_args(argv)
    STAGE.mkdir(parents=True, exist_ok=True)
    stage()
    run = mutmut("run", "--max-children", str(args.workers), *args.mutants)
    if run.returncode != 0:
        print(f"mutation: mutmut run failed ({run.returncode})", file=sys.stderr)
        return run.returncode
    found = statuses(mutmut("results", "--all", "true").stdout)
    rules = {k: v for k, v in found.items() if not k.startswith(BUS)}
    bus = {k: v for k, v in found.items() if k.startswith(FENCE)}
    print("survivors:")
    for text in (*survivors(rules), *survivors(bus)):
        print(text)
    print(line("mutation (bus)", bus))
    print(line("mutation", rules))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
