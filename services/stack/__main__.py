"""Start NATS and the six services; Ctrl-C stops them all.

``python -m services.stack`` (`make run`): one embedded nats-server (unless NATS_URL is set) and
one process per service, data in ``var/``.

``python -m services.stack --cluster`` (`make run-cluster`): a local three-node NATS cluster
(client ports 4222-4224, routes 6222-6224: deploy/nats/cluster-{1,2,3}.conf), every stream and
bucket at three replicas, and two replicas of every service, data in ``var/cluster/``. The lobby
is at the same address as `make run` (both lobby replicas bind it) and so is the audit API.
Each process logs to ``var/cluster/logs/<name>.log`` (``referee.1.log``, ...).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from pathlib import Path

from match_audit.client import DEFAULT_ADDR as LEDGER_DEFAULT  # match-audit's, LEDGER_ADDR unset
from match_client.client import DEFAULT_ADDRESS, match_command
from match_launch.natscluster import NatsCluster
from match_launch.stack import SERVICES, Stack

# Each service's metrics port under `make run` (<SERVICE>_METRICS_PORT overrides it): the same
# ports as on Kubernetes and in deploy/prometheus/prometheus-local.yml.
METRICS = {
    "LOBBY": 9101,
    "REFEREE": 9102,
    "DEALER": 9103,
    "LEDGER": 9104,
    "BOT": 9105,
    "PLAYERS": 9106,
}


def _ports(value: str) -> list[int]:
    return [int(p) for p in value.split(",") if p.strip()]


def _ca(env: dict[str, str]) -> Path | None:
    """MATCH_CA: the CA that signed the lobby's certificate, when LOBBY_TLS_CERT turns TLS on."""
    return Path(env["MATCH_CA"]) if env.get("MATCH_CA") else None


def commands(stack: Stack, env: dict[str, str]) -> str:
    """The commands the start message offers, each working as printed on this stack's
    addresses: ``--addr`` (and ``--ca`` for a TLS lobby) wherever they are not the defaults,
    and the demo with the environment that reaches them."""
    tls = bool(env.get("LOBBY_TLS_CERT") or stack.env.get("LOBBY_TLS_CERT"))
    ca = stack.ca_file if tls else None
    play = ".venv/bin/" + match_command("play --new", stack.lobby_addr, ca)
    demo = {
        "MATCH_ADDR": stack.lobby_addr if stack.lobby_addr != DEFAULT_ADDRESS else "",
        "MATCH_CA": str(ca) if ca is not None else "",
        "LEDGER_ADDR": stack.ledger_addr if stack.ledger_addr != LEDGER_DEFAULT else "",
        "MATCH_VAR": env.get("MATCH_VAR", "") if env.get("MATCH_VAR", "var") != "var" else "",
    }
    demo_env = " ".join(f"{k}={shlex.quote(v)}" for k, v in demo.items() if v)
    ledger = "" if stack.ledger_addr == LEDGER_DEFAULT else f" --addr {stack.ledger_addr}"
    audit = f".venv/bin/match-audit{ledger} verify <game> --key {stack.verifier_key_file}"
    return (
        f"Play: {play}      Demo: {(demo_env + ' ') if demo_env else ''}make demo\n"
        f"Audit: {audit}      Stop: Ctrl-C"
    )


def single(env: dict[str, str]) -> Stack:
    get = env.get
    return Stack(
        Path(get("MATCH_VAR", "var")).resolve(),
        nats_url=get("NATS_URL") or None,
        lobby_addr=get("LOBBY_ADDR", "127.0.0.1:50051"),
        ledger_addr=get("LEDGER_ADDR", "127.0.0.1:50052"),
        web_addr=get("LOBBY_WEB_ADDR", "127.0.0.1:8080"),
        ledger_web_addr=get("LEDGER_WEB_ADDR", "127.0.0.1:8081"),
        ca_file=_ca(env),
        env={
            "NATS_PORT": get("NATS_PORT", "4222"),
            **{f"{k}_METRICS_PORT": get(f"{k}_METRICS_PORT", str(v)) for k, v in METRICS.items()},
        },
        inherit_output=True,
    )


def clustered(env: dict[str, str], replicas: int) -> Stack:
    """Three local NATS nodes, streams at R3, ``replicas`` of every service. Metrics are off
    unless <SERVICE>_METRICS_PORT is set (replica i then serves on that port + 10 * (i - 1))."""
    get = env.get
    workdir = Path(get("MATCH_VAR", "var")).resolve() / "cluster"
    cluster = NatsCluster(
        workdir / "nats",
        ports=_ports(get("NATS_PORTS", "4222,4223,4224")),
        cluster_ports=_ports(get("NATS_CLUSTER_PORTS", "6222,6223,6224")),
    )
    metrics = {f"{k}_METRICS_PORT": get(f"{k}_METRICS_PORT", "") for k in METRICS}
    return Stack(
        workdir,
        cluster=cluster,
        replicas=dict.fromkeys(SERVICES, replicas),
        lobby_addr=get("LOBBY_ADDR", "127.0.0.1:50051"),
        ledger_addr=get("LEDGER_ADDR", "127.0.0.1:50052"),
        web_addr=get("LOBBY_WEB_ADDR", "127.0.0.1:8080"),
        ledger_web_addr=get("LEDGER_WEB_ADDR", "127.0.0.1:8081"),
        ca_file=_ca(env),
        env={k: v for k, v in metrics.items() if v},
        inherit_output=False,  # twelve processes: one log file each, in <data>/logs/
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.stack", description=__doc__)
    parser.add_argument(
        "--cluster", action="store_true", help="three NATS nodes and replicas of every service"
    )
    parser.add_argument(
        "--replicas", type=int, default=2, help="with --cluster: processes per service (2)"
    )
    args = parser.parse_args(argv)
    env = dict(os.environ)
    stack = clustered(env, args.replicas) if args.cluster else single(env)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        stack.start(timeout=60.0 if args.cluster else 30.0)
        nats = stack.cluster.urls if stack.cluster is not None else stack.url
        print(
            f"\nMatch is up. Play in a browser: {stack.web_url}\n"
            f"gRPC: {stack.lobby_addr}  audit: {stack.ledger_addr}  "
            f"NATS: {nats}  data: {stack.workdir}\n"
            f"processes: {' '.join(stack.processes)}"
            + ("" if stack.inherit_output else f"  logs: {stack.workdir / 'logs'}")
            + "\n"
            f"{commands(stack, env)}\n",
            file=sys.stderr,
            flush=True,
        )
        while not stopping:
            for name, proc in stack.processes.items():
                if proc.poll() is not None:
                    print(f"{name} exited ({proc.returncode}); stopping", file=sys.stderr)
                    if not stack.inherit_output:
                        print(stack.log(name), file=sys.stderr)
                    stopping = True
            time.sleep(0.5)
    finally:
        stack.stop()
        print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
