"""Two checkouts' CPU per turn at full speed, side by side: a short full speed over Play (the
bench's loop step: 300 tables, 64 turns in flight, a fresh stack each time) run from ``BASE``
then from this checkout, ``ROUNDS`` times, alternating, so both see the same machine. Each line
gives turns/s, services + NATS per turn and each process's CPU per turn; the last two lines the
medians. ``view`` as the third argument has every seat follow its view as well, as the apps
play (the bench's ``full_speed_view``). ``BASE`` is any checkout of the project, e.g. ``git
worktree add /tmp/base main``; its code runs on this checkout's virtualenv.

``.venv/bin/python tools/full_speed_ab.py BASE [ROUNDS] [play|view] [NAME=VALUE ...]`` from the
checkout: a quick figure for one change, not a test (``make bench`` is the whole measurement).
Each ``NAME=VALUE`` is set in the environment of this checkout's side only (its services inherit
it), so one checkout can be compared with itself under a setting: ``tools/full_speed_ab.py . 3
play REFEREE_FRAMES=1``.

``.venv/bin/python tools/full_speed_ab.py ramp N [N...]`` runs this checkout alone, once at each
N turns in flight (in the order given, about 2 x N tables opened first): what CPU a turn costs
as the load deepens (docs/performance.md, "Full speed is a saturation point")."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

STEP = """
import asyncio, json, sys, tempfile
from pathlib import Path
from match_bench import run as r

async def main(via, concurrency):
    args = r.parse(["--out", tempfile.mkdtemp(prefix="ab-"), "--loop-tables",
                    str(max(300, 2 * concurrency)), "--concurrency", str(concurrency),
                    "--loop-warmup", "5", "--loop-seconds", "12", "--no-profile"])
    results = {}
    with tempfile.TemporaryDirectory(prefix="ab-") as tmp:
        stack = r.bench_stack(Path(tmp) / "s", event_loop="uvloop")
        try:
            stack.start()
            nc = await stack.connect_nats(name="ab")
            bench = r.Bench(args, stack, nc, args.out, results)
            with bench.sending(via):
                await bench.run_loop_step()
            await nc.close()
        finally:
            stack.stop()
    step = results["loop_steps"][-1]
    per_turn = {k: round(v * 1e6 / step["turns"]) for k, v in step["cpu_s"].items()}
    print("AB " + json.dumps({"turns_s": round(step["turns_per_s"]),
                              "stack_us": step["stack_cpu_us_per_turn"], **per_turn,
                              "in_flight": round(step["mean_in_flight"], 1)}))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def step(
    checkout: Path, via: str, settings: dict[str, str] | None = None, concurrency: int = 64
) -> dict[str, int]:
    """One short full speed with ``checkout``'s code (its services too: they inherit the path),
    its players sending over ``via`` (match_bench.transport: play, unary or view), with
    ``settings`` in its environment, ``concurrency`` turns in flight."""
    env = {
        **os.environ,
        **(settings or {}),
        "PYTHONPATH": f"{checkout / 'libs'}{os.pathsep}{checkout}",
    }
    done = subprocess.run(
        [sys.executable, "-c", STEP, via, str(concurrency)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    for line in done.stdout.splitlines():
        if line.startswith("AB "):
            figures: dict[str, int] = json.loads(line[3:])
            return figures
    raise SystemExit(f"a step from {checkout} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["ramp"] and len(argv) > 1:
        for concurrency in map(int, argv[1:]):
            print(f"in flight {concurrency}: {json.dumps(step(HERE, 'play', None, concurrency))}")
        return
    if not argv or not (Path(argv[0]) / "libs" / "match_bench").is_dir():
        raise SystemExit(
            "usage: tools/full_speed_ab.py BASE_CHECKOUT [ROUNDS] [play|unary|view] [NAME=VALUE...]"
            "\n       tools/full_speed_ab.py ramp N [N...]"
        )
    base, rounds = Path(argv[0]).resolve(), int(argv[1]) if len(argv) > 1 else 3
    via = argv[2] if len(argv) > 2 else "play"
    settings = dict(arg.split("=", 1) for arg in argv[3:])
    seen: dict[str, list[dict[str, int]]] = {"base": [], "this": []}
    for n in range(rounds):
        for side, checkout in (("base", base), ("this", HERE)):
            figures = step(checkout, via, settings if side == "this" else None)
            seen[side].append(figures)
            print(f"round {n + 1} {side}: {json.dumps(figures)}", flush=True)
    for side, rows in seen.items():
        medians = {k: round(statistics.median(r[k] for r in rows)) for k in rows[0]}
        print(f"median {side}: {json.dumps(medians)}")


if __name__ == "__main__":
    main(sys.argv[1:])
