"""`make bench-sync`: what ``sync_interval: always`` costs, in one run.

The bare chain of a turn (grpc.aio unary -> NATS request -> JetStream publish with ack -> reply,
``match_bench.bare``) against two nats-servers that differ only in that setting: one fsyncs
every append before it acknowledges it (how Match runs), the other leaves it to the server's
default (a flush every two minutes: an acknowledged append can be lost to a power cut or a
kernel crash, Jepsen's 2025 finding for NATS 2.12.1). The rounds alternate so that the machine's
noise falls on both. Ends with one line: ``bench-sync: always=<calls/s> default=<calls/s>
cost=<share of throughput lost> p99_always_ms=<ms> p99_default_ms=<ms>``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc  # type: ignore[import-untyped, unused-ignore]

from match_bench.bare import METHOD
from match_bench.players import Channels
from match_launch.child import tied
from match_launch.natsserver import NatsServer, free_port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else 0.0


async def chain(url: str, workdir: Path, concurrency: int, seconds: float) -> dict[str, float]:
    """Start the bare gateway and responder on ``url``, load them, stop them: the figures."""
    addr = f"127.0.0.1:{free_port()}"
    procs = []
    try:
        for argv in (["responder", url], ["server", addr, url]):
            log = open(workdir / f"bare-{argv[0]}.log", "ab")  # noqa: SIM115
            proc = subprocess.Popen(
                tied([sys.executable, "-m", "match_bench.bare", *argv]),
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
                stdout=subprocess.PIPE,
                stderr=log,
            )
            log.close()
            procs.append(proc)
            assert proc.stdout is not None
            if (await asyncio.to_thread(proc.stdout.readline)).strip() != b"ready":
                raise RuntimeError(f"bare {argv[0]} did not start; see {workdir}")
        channels = Channels(addr)
        latencies: list[float] = []
        errors = 0
        measuring = False
        stop = time.monotonic() + 2.0 + seconds  # two seconds of warm-up

        async def caller(n: int) -> None:
            nonlocal errors
            call = channels.pick().unary_unary(METHOD)
            payload = os.urandom(300) + n.to_bytes(4, "big")  # about a turn's record
            while time.monotonic() < stop:
                t0 = time.perf_counter()
                try:
                    await call(payload, timeout=30)
                except grpc.aio.AioRpcError:
                    errors += 1
                    continue
                if measuring:
                    latencies.append(time.perf_counter() - t0)

        tasks = [asyncio.create_task(caller(n)) for n in range(concurrency)]
        await asyncio.sleep(2.0)
        measuring, t0 = True, time.monotonic()
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - t0
        await channels.close()
        return {
            "calls_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(percentile(latencies, 50) * 1000, 2),
            "p99_ms": round(percentile(latencies, 99) * 1000, 2),
            "errors": errors,
        }
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


async def amain(args: argparse.Namespace) -> str:
    rounds: dict[str, list[dict[str, float]]] = {"always": [], "default": []}
    with tempfile.TemporaryDirectory(prefix="match-bench-sync-") as tmp:
        for r in range(args.rounds):
            for name in ("always", "default") if r % 2 == 0 else ("default", "always"):
                workdir = Path(tmp) / f"{name}-{r}"
                server = NatsServer(workdir, sync_always=name == "always").start()
                try:
                    fig = await chain(server.url, workdir, args.concurrency, args.seconds)
                finally:
                    server.stop()
                rounds[name].append(fig)
                print(f"round {r + 1} {name:>7}: {json.dumps(fig)}", flush=True)
    mean = {n: sum(f["calls_per_s"] for f in figs) / len(figs) for n, figs in rounds.items()}
    p99 = {n: max(f["p99_ms"] for f in figs) for n, figs in rounds.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench-sync.json").write_text(json.dumps(rounds, indent=2))
    cost = 1 - mean["always"] / mean["default"] if mean["default"] else 0.0
    return (
        f"bench-sync: always={mean['always']:.0f} default={mean['default']:.0f} "
        f"cost={cost:.2f} p99_always_ms={p99['always']:.1f} p99_default_ms={p99['default']:.1f}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m match_bench.sync", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("var"))
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=2, help="rounds of each setting, alternating")
    print(asyncio.run(amain(p.parse_args(argv))), flush=True)


if __name__ == "__main__":
    main()
