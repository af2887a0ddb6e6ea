"""How often the dealer's check finds a game over when it is asked the moment the game's last
record is stored, as the referee asks for a reveal. One nats-server (``sync_interval: always``,
the streams made by ``match_bus.jetstream.ensure_stream``: the log and the readers' copies, which
nats-server lets answer the log's Direct Gets). For each of ``ASKS`` new tables: its first record
and its last (the game ends), each acknowledged, then a fresh ``TableFolds`` asked whether the
game is over. Prints the answers that said "not over", and the requests an ask made.

``.venv/bin/python tools/reveal_after_end.py [ASKS] [--busy N] [--folds PATH]`` from the
checkout: ``--busy`` runs N processes spinning beside it (a busy machine, where a copy falls
further behind); ``--folds`` takes ``TableFolds`` from another version of
``libs/match_bus/folds.py`` (``git show REV:libs/match_bus/folds.py > /tmp/folds.py``). A quick
figure, not a test: ``tests/services/test_dealer.py`` has the test."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import nats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "libs"))
from match_bench.reveal import ENDED, STARTED, race_record
from match_bus import folds, jetstream, subjects
from match_launch.natsserver import NatsServer


def load(path: str | None) -> ModuleType:
    if path is None:
        return folds
    spec = importlib.util.spec_from_file_location("folds_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


async def main(asks: int, module: ModuleType) -> None:
    with tempfile.TemporaryDirectory() as workdir:
        server = NatsServer(Path(workdir)).start()
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await jetstream.ensure_stream(js)
            not_over = requests = checks = 0
            started = time.monotonic()
            for n in range(asks):
                table = f"after{n:08d}"
                await js.publish(subjects.events(table), race_record(table, 1, STARTED))
                await js.publish(subjects.events(table), race_record(table, 2, ENDED))
                log = module.TableFolds(nc)
                not_over += await log.ended(table) is None
                requests += log.requests
                checks += getattr(log, "checks", 0)
            took = time.monotonic() - started
            await nc.close()
        finally:
            server.stop()
    print(
        f"{asks} asks: {not_over} answered 'not over'; {requests / asks:.2f} Direct Gets and "
        f"{checks / asks:.2f} look-ups at the leader an ask; {took / asks * 1000:.2f} ms a table"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("asks", nargs="?", type=int, default=2_000)
    parser.add_argument("--busy", type=int, default=0, help="processes spinning beside it")
    parser.add_argument("--folds", help="another version of libs/match_bus/folds.py")
    args = parser.parse_args()
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)
    ]
    try:
        asyncio.run(main(args.asks, load(args.folds)))
    finally:
        for process in spinning:
            process.kill()
            process.wait()
