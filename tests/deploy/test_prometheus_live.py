"""A real Prometheus (Debian's `prometheus` package: the binary `make deploy-check`'s promtool
comes with) scrapes a real stack, as deploy/prometheus/prometheus-local.yml configures it for
`make run`, with its recording rules and alerts, while a game is played. Through Prometheus's
HTTP API: every target is up, every rule evaluates without error, every dashboard query and
every alert expression evaluates without error, and the game's turns show up.

Not skipped when the binary is missing: it fails, saying how to install it (`make test` installs
it first, through tools/need-debian)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml

from match_bus.clock import Clock
from match_deploy import check
from match_launch.child import tied
from match_launch.natsserver import free_port
from match_launch.stack import SERVICES, Stack
from tests.audit.game import play_short_game, stack_env

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
EVERY_S = "1s"  # scrape and evaluate quickly: the test waits for what a 15 s cadence shows


def prometheus_binary() -> str:
    found = shutil.which("prometheus")
    if found is None:
        pytest.fail(
            "the prometheus binary is not installed: apt-get install -y prometheus "
            "(Debian's package; make test installs it when missing)"
        )
    return found


def api(base: str, path: str, **params: str) -> Any:
    url = f"{base}/api/v1/{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")
    with urllib.request.urlopen(url, timeout=10) as answer:
        body = json.loads(answer.read())
    assert body["status"] == "success", body
    return body["data"]


def query(base: str, expr: str) -> list[dict[str, Any]]:
    """The instant vector ``expr`` gives, failing the test on any error or warning."""
    params = urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(f"{base}/api/v1/query?{params}", timeout=10) as answer:
            body = json.loads(answer.read())
    except urllib.error.HTTPError as error:
        pytest.fail(f"{expr}: {error.code} {error.read().decode()}")
    assert body["status"] == "success", (expr, body)
    assert not body.get("warnings"), (expr, body["warnings"])
    data: list[dict[str, Any]] = body["data"]["result"]
    return data


def configure(folder: Path, ports: dict[str, int]) -> Path:
    """prometheus-local.yml with the test's ports and a 1 s cadence, its rule files copied
    as they are except for their groups' evaluation interval."""
    config = yaml.safe_load((DEPLOY / "prometheus-local.yml").read_text())
    config["global"] = {"scrape_interval": EVERY_S, "evaluation_interval": EVERY_S}
    for job in config["scrape_configs"]:
        service = job["job_name"].removeprefix("match-")
        job["static_configs"] = [{"targets": [f"127.0.0.1:{ports[service]}"]}]
    assert {j["job_name"] for j in config["scrape_configs"]} == {f"match-{s}" for s in SERVICES}
    (folder / "rules").mkdir(parents=True)
    for name in config["rule_files"]:
        rules = yaml.safe_load((DEPLOY / name).read_text())
        for group in rules["groups"]:
            if "interval" in group:
                group["interval"] = EVERY_S
        (folder / name).write_text(yaml.safe_dump(rules))
    path = folder / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[tuple[str, Stack]]:
    binary = prometheus_binary()
    ports = {service: free_port() for service in SERVICES}
    env = stack_env()
    env.update({f"{s.upper()}_METRICS_PORT": str(p) for s, p in ports.items()})
    stack = Stack(tmp_path / "stack", env=env)
    config = configure(tmp_path / "prometheus", ports)
    address = f"127.0.0.1:{free_port()}"
    log = open(tmp_path / "prometheus.log", "wb")  # noqa: SIM115 - closed below
    server = None
    try:
        stack.start()
        server = subprocess.Popen(
            tied(
                [
                    binary,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address={address}",
                    "--log.level=warn",
                ]
            ),
            cwd=config.parent,
            stdout=log,
            stderr=log,
        )
        base = f"http://{address}"
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, (tmp_path / "prometheus.log").read_text()
            try:
                with urllib.request.urlopen(f"{base}/-/ready", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "prometheus did not become ready"
            time.sleep(0.2)
        yield base, stack
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        log.close()
        stack.stop()


def wait_for(base: str, expr: str, timeout: float = 30.0) -> float:
    """Until ``expr`` gives a value above 0; the value."""
    deadline = time.monotonic() + timeout
    while True:
        result = query(base, expr)
        if result and float(result[0]["value"][1]) > 0:
            return float(result[0]["value"][1])
        assert time.monotonic() < deadline, f"{expr} stayed empty or 0: {result}"
        time.sleep(0.5)


def test_every_query_and_alert_evaluates_against_a_real_stack(
    prometheus: tuple[str, Stack],
) -> None:
    base, stack = prometheus
    env = stack.service_env("referee")
    clock = Clock(float(env["REFEREE_CLOCK_RATE"]), int(env["REFEREE_CLOCK_ANCHOR_MS"]))

    async def play() -> str:
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            return await play_short_game(channel, clock)

    game = asyncio.run(play())
    assert game

    # every service scraped
    deadline = time.monotonic() + 30
    while True:
        targets = api(base, "targets")["activeTargets"]
        health = {t["labels"]["job"]: t["health"] for t in targets}
        if len(health) == len(SERVICES) and set(health.values()) == {"up"}:
            break
        assert time.monotonic() < deadline, targets
        time.sleep(0.5)

    # the game's turns: the referee judged them, the lobby answered them, both scraped
    assert wait_for(base, 'sum(match_referee_commands_total{kind="turn_tile"})') >= 6
    assert wait_for(base, 'sum(match_referee_commands_total{kind="turn_tile", outcome="accepted"})')
    assert wait_for(base, 'sum(match_lobby_request_seconds_count{method="TurnTile"})') >= 6
    assert wait_for(base, "max(match_referee_partitions)") == 16
    assert wait_for(base, 'min(match_nats_connected{job=~"match-.*"})') == 1
    assert wait_for(base, "max(match_ledger_tree_size)") > 0
    # the players service counted the finished game (once its seed was revealed) and took the log
    assert wait_for(base, "sum(match_players_games_total)") >= 1
    assert wait_for(base, "max(match_players_last_stream_sequence)") > 0
    # every service times its garbage collections (the dashboard's "Collector pauses")
    paused = 'count(match_gc_pause_seconds_count{job=~"match-.*", generation="2"})'
    assert wait_for(base, paused) == len(SERVICES)

    # every dashboard query and every rule's expression evaluates without error or warning
    queries = check.dashboard_queries()
    assert queries
    for _, expr in queries:
        query(base, expr)
    for rule in check.rules():
        query(base, rule["expr"])

    # and Prometheus itself evaluated every rule group without error (twice, to be sure)
    deadline = time.monotonic() + 30
    while True:
        groups = api(base, "rules")["groups"]
        rules = [r for g in groups for r in g["rules"]]
        evaluated = all(r.get("lastEvaluation", "").startswith("20") for r in rules)
        if len(rules) == len(check.rules()) and evaluated:
            break
        assert time.monotonic() < deadline, groups
        time.sleep(1)
    time.sleep(2)
    rules = [r for g in api(base, "rules")["groups"] for r in g["rules"]]
    assert [(r["name"], r["lastError"]) for r in rules if r["health"] != "ok"] == []
    # the recorded turns reach the dashboard's series
    assert wait_for(base, "sum(match_referee_live_tables) + 1") >= 1
    firing = {a["labels"]["alertname"] for a in api(base, "alerts")["alerts"]}
    # a healthy stack that just played a game pages nobody
    assert not firing & {
        "MatchServiceDown",
        "MatchNatsUnreachable",
        "MatchRefereeAbsent",
        "MatchRefereePartitionWithoutHolder",
    }, firing
