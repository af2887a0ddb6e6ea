"""`make bench-peer` (`python -m match_bench.peer --out var`): our stack and a peer, Colyseus,
side by side, in one run, on the same machine, with the same load shapes.

1. Our stack, fsync on every append (how Match runs): match_bench's full speed (a closed loop,
   ``--concurrency`` TurnTile calls in flight), the same again with every seat following its
   view on its stream (as the apps play; the peer's players always get each turn's progress
   pushed, so this is the like-for-like figure: ``match_view_turns_s``, printed on a line of its
   own), the bare chain, and the human-pace ramp (``--human-tables`` / 4, / 2 and whole, 1.3
   turns/s per table, commands only), through ``match_bench.run``'s own ``Bench`` phases.
2. Our stack again with group commit (JetStream ``sync_interval`` ``--group-sync``): full speed
   and the same ramp.
3. Colyseus (``bench/peers/colyseus``: a ``RaceRoom`` that plays the race's turn, installed here
   with ``npm ci`` from its lock file): its server and its driver as subprocesses, full speed with
   the same ``--concurrency`` turns in flight, then the same ramp of live rooms at the same pace.

Each side has the machine to itself while it is measured (they run one after the other). Prints
a table and ends with one line::

    peer: match_turns_s=<n> colyseus_turns_s=<n> match_p99_ms_1000=<n> colyseus_p99_ms_1000=<n>
    match_durable=yes colyseus_durable=no

(on one line). Colyseus keeps every room in its process's memory and writes nothing: a crash
loses every game in play and leaves nothing to audit or replay. Our stack fsyncs every record
(or, with group commit, every few milliseconds) and the ledger can replay and audit every game.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from match_bench import run
from match_launch.child import tied
from match_launch.natsserver import free_port

PEER_DIR = Path(__file__).resolve().parents[2] / "bench" / "peers" / "colyseus"
STAMP = "node_modules/.match-installed"


# --- the peer's install ---------------------------------------------------------------------


def lock_digest(peer_dir: Path = PEER_DIR) -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((peer_dir / name).read_bytes())
    return digest.hexdigest()


def install(peer_dir: Path = PEER_DIR) -> bool:
    """``npm ci`` in ``peer_dir`` unless node_modules was installed from this very lock file;
    True when it installed. Fails loudly (no node, no npm, no registry)."""
    stamp = peer_dir / STAMP
    digest = lock_digest(peer_dir)
    if stamp.exists() and stamp.read_text().strip() == digest:
        return False
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"the Colyseus peer needs {tool} on PATH (Node >= 20)")
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=peer_dir, check=True
    )
    stamp.write_text(digest + "\n")
    return True


# --- Colyseus -------------------------------------------------------------------------------


class ColyseusServer:
    """``node server.mjs PORT`` as a subprocess (its output goes to ``log``)."""

    def __init__(self, log: Path, peer_dir: Path = PEER_DIR) -> None:
        self.peer_dir = peer_dir
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}"
        self._log = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            tied(["node", "server.mjs", str(self.port)]),
            cwd=peer_dir,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "ready <port>", or "" if it died
        if not line.startswith(b"ready"):
            self.stop()
            raise RuntimeError(f"the Colyseus server did not start; see {log}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._log.close()

    def __enter__(self) -> ColyseusServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def drive(server: ColyseusServer, mode: str, *options: str, timeout: float = 900) -> Any:
    """Run ``node driver.mjs --mode MODE OPTIONS`` against ``server``: its JSON (last line)."""
    argv = ["node", "driver.mjs", "--url", server.url, "--mode", mode]
    argv += ["--server-pid", str(server.process.pid), *options]
    done = subprocess.run(
        argv, cwd=server.peer_dir, stdout=subprocess.PIPE, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Colyseus driver ({mode}) failed: exit {done.returncode}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def colyseus(args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    """Full speed and the human-pace ramp against one Colyseus server."""
    levels = sorted({max(1, args.human_tables // 4), max(1, args.human_tables // 2)})
    levels = sorted({*levels, args.human_tables})
    with ColyseusServer(logs / "colyseus-server.log") as server:
        full = drive(
            server, "full",
            "--rooms", str(args.colyseus_rooms), "--concurrency", str(args.concurrency),
            "--warmup", str(args.warmup), "--seconds", str(args.full_seconds),
        )["full_speed"]  # fmt: skip
        human = drive(
            server, "human",
            "--levels", ",".join(map(str, levels)), "--seconds", str(args.human_seconds),
            "--turns-per-room-s", str(run.HUMAN_TURNS_PER_TABLE_S),
        )["human_pace"]  # fmt: skip
    return {"full_speed": full, "human_pace": human}


# --- our stack ------------------------------------------------------------------------------


def run_args(args: argparse.Namespace) -> argparse.Namespace:
    """match_bench.run's settings for the same shapes: the ramp exactly /4, /2 and whole (no
    halving below it, no steps beyond), no profile, no idle tables."""
    return run.parse(
        [
            "--out", str(args.out), "--tables", str(args.tables),
            "--concurrency", str(args.concurrency), "--warmup", str(args.warmup),
            "--full-seconds", str(args.full_seconds), "--bare-seconds", str(args.bare_seconds),
            "--human-tables", str(args.human_tables),
            "--human-max-tables", str(args.human_tables), "--p99-ms", "1e9",
            "--human-seconds", str(args.human_seconds), "--group-sync", args.group_sync,
            "--idle-tables", "0", "--settle", str(args.settle), "--no-profile",
        ]
    )  # fmt: skip


async def our_stack(
    args: argparse.Namespace, workdir: Path, group_sync: str, bare: bool
) -> dict[str, Any]:
    """Full speed, the bare chain (with ``bare``) and the human-pace ramp on one stack."""
    results: dict[str, Any] = {}
    stack = run.bench_stack(workdir, group_sync)
    await run.on_stack(run_args(args), stack, results, "peer" if bare else "peer_no_bare")
    return results


# --- the report -----------------------------------------------------------------------------


def at_tables(points: list[dict[str, Any]], tables: int) -> dict[str, Any]:
    key = "tables" if "tables" in points[-1] else "rooms"
    return next((p for p in points if p[key] == tables), points[-1])


def ms(value: float | None) -> str:
    """A latency to 0.1 ms; "nan" when no turn was measured (the driver's JSON says null)."""
    return "nan" if value is None else f"{value:.1f}"


def table_text(results: dict[str, Any], group_sync: str) -> str:
    head = ("side", "shape", "games", "turns/s", "p50 ms", "p95 ms", "p99 ms", "in flight",
            "us/turn")  # fmt: skip
    rows: list[tuple[str, ...]] = [head]

    def row(side: str, shape: str, fig: dict[str, Any], games: Any, cpu: str) -> None:
        lat = fig["latency_ms"]
        rows.append(
            (side, shape, str(games), f"{fig['turns_per_s']:.0f}", ms(lat["p50"]),
             ms(lat["p95"]), ms(lat["p99"]), f"{fig['mean_in_flight']:.1f}", cpu)
        )  # fmt: skip

    def ours(side: str, part: dict[str, Any]) -> None:
        f = part["full_speed"]
        cpu = f"{f['service_cpu_us_per_turn']}/{f['all_cpu_us_per_turn']}"
        row(side, "full speed", f, f["tables"], cpu)
        if "full_speed_view" in part:
            v = part["full_speed_view"]
            cpu = f"{v['service_cpu_us_per_turn']}/{v['all_cpu_us_per_turn']}"
            row(side, "full speed, views", v, v["tables"], cpu)
        if "bare_chain" in part:
            b = part["bare_chain"]
            row("bare chain", "full speed", b, f"c={b['concurrency']}",
                f"{b['chain_cpu_us_per_call']}/{b['all_cpu_us_per_turn']}")  # fmt: skip
        for p in part["human_pace"]:
            cpu = f"{p['service_cpu_us_per_turn']}/{p['all_cpu_us_per_turn']}"
            row(side, "human pace", p, p["tables"], cpu)

    ours("match, fsync always", results["match"])
    if "match_group" in results:
        ours(f"match, sync {group_sync}", results["match_group"])
    c = results["colyseus"]
    side = "colyseus, memory"
    f = c["full_speed"]
    row(side, "full speed", f, f["rooms"],
        f"{f['server_cpu_us_per_turn']}/{f['all_cpu_us_per_turn']}")  # fmt: skip
    for p in c["human_pace"]:
        row(side, "human pace", p, p["rooms"],
            f"{p['server_cpu_us_per_turn']}/{p['all_cpu_us_per_turn']}")  # fmt: skip
    lines = run.aligned(rows)
    lines += [
        "games: tables (ours) or rooms (Colyseus) of 2 players; full speed: "
        f"at most {results['settings']['concurrency']} turns in flight",
        "us/turn: CPU of the servers (our four services; the bare chain's processes; the "
        "Colyseus process) / of everything (NATS, the drivers)",
        "views: every seat also follows its view on its stream, as the apps do; the peer's "
        "players always get each turn's progress pushed",
        "durability: match fsyncs every record before it answers (sync always) or within "
        f"{group_sync} (group commit) and its ledger can replay and audit every game;",
        "  colyseus keeps every room in one process's memory and writes nothing: a crash "
        "loses every game in play, nothing is left to audit.",
    ]
    return "\n".join(lines)


def summary(results: dict[str, Any], human_tables: int) -> str:
    match, peer = results["match"], results["colyseus"]
    m99 = at_tables(match["human_pace"], human_tables)["latency_ms"]["p99"]
    c99 = at_tables(peer["human_pace"], human_tables)["latency_ms"]["p99"]
    results["summary"] = s = {
        "match_turns_s": round(match["full_speed"]["turns_per_s"]),
        "colyseus_turns_s": round(peer["full_speed"]["turns_per_s"]),
        "match_p99_ms_1000": m99,
        "colyseus_p99_ms_1000": c99,
        "human_tables": human_tables,
    }
    if "full_speed_view" in match:
        s["match_view_turns_s"] = round(match["full_speed_view"]["turns_per_s"])
    if "match_group" in results:
        group = results["match_group"]
        s["match_group_turns_s"] = round(group["full_speed"]["turns_per_s"])
        s["match_group_p99_ms_1000"] = at_tables(group["human_pace"], human_tables)["latency_ms"][
            "p99"
        ]
    return (
        f"peer: match_turns_s={s['match_turns_s']} colyseus_turns_s={s['colyseus_turns_s']} "
        f"match_p99_ms_1000={ms(m99)} colyseus_p99_ms_1000={ms(c99)} "
        "match_durable=yes colyseus_durable=no"
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m match_bench.peer", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("var"))
    p.add_argument("--tables", type=int, default=300, help="our tables opened before full speed")
    p.add_argument("--colyseus-rooms", type=int, default=300, help="Colyseus rooms, full speed")
    p.add_argument("--concurrency", type=int, default=64, help="turns in flight at full speed")
    p.add_argument("--warmup", type=float, default=8.0)
    p.add_argument("--full-seconds", type=float, default=20.0)
    p.add_argument("--bare-seconds", type=float, default=15.0)
    p.add_argument("--human-tables", type=int, default=1000, help="the ramp's last step")
    p.add_argument("--human-seconds", type=float, default=15.0)
    p.add_argument(
        "--group-sync", default="5ms", help="our stack again with this sync_interval ('' skips)"
    )
    p.add_argument("--settle", type=float, default=3.0)
    p.add_argument("--colyseus-only", action="store_true", help="skip our stack (for a check)")
    return p.parse_args(argv)


async def amain(args: argparse.Namespace) -> str:
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    if install():
        print(f"[peer] installed {PEER_DIR} (npm ci)", flush=True)
    results: dict[str, Any] = {"settings": {k: str(v) for k, v in vars(args).items()}}
    with tempfile.TemporaryDirectory(prefix="match-peer-") as tmp:
        logs = Path(tmp) / "logs"
        logs.mkdir()
        if not args.colyseus_only:
            results["match"] = await our_stack(args, Path(tmp) / "stack", "", bare=True)
            if args.group_sync:
                results["match_group"] = await our_stack(
                    args, Path(tmp) / "group", args.group_sync, bare=False
                )
        print(f"[peer {time.monotonic() - t0:6.1f}s] Colyseus", flush=True)
        results["colyseus"] = await asyncio.to_thread(colyseus, args, logs)
    (args.out / "peer.json").write_text(json.dumps(results, indent=2))
    if args.colyseus_only:
        return json.dumps(results["colyseus"])
    print(table_text(results, args.group_sync), flush=True)
    line = summary(results, args.human_tables)
    s = results["summary"]
    if "match_view_turns_s" in s:
        print(
            "as the apps play, every seat following its view (the peer's players get each "
            f"turn's progress pushed): match_view_turns_s={s['match_view_turns_s']}, "
            f"{s['match_view_turns_s'] / max(s['colyseus_turns_s'], 1):.3f} of the peer's",
            flush=True,
        )
    if "match_group" in results:
        print(
            f"with group commit (sync_interval {args.group_sync}): "
            f"match_turns_s={s['match_group_turns_s']} "
            f"match_p99_ms_1000={ms(s['match_group_p99_ms_1000'])}",
            flush=True,
        )
    (args.out / "peer.json").write_text(json.dumps(results, indent=2))
    return line


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    print(asyncio.run(amain(parse(argv))), flush=True)


if __name__ == "__main__":
    main()
