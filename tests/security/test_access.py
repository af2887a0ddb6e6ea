"""The permissions table is one source: the server's configuration and the docs come from it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from match_bus import access, subjects
from match_launch.natsserver import nats_server_binary

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "operations.md"
DEPLOY = ROOT / "deploy" / "nats"


def test_the_docs_show_the_table_the_server_runs_with() -> None:
    text = DOCS.read_text()
    found = re.search(
        r"<!-- permissions table:[^\n]*-->\n(.*?)<!-- end of permissions table -->", text, re.S
    )
    assert found, "docs/operations.md lost its permissions table"
    assert found.group(1) == access.markdown(), "run: python -m match_bus.access markdown"


def test_every_service_has_its_own_inbox_and_no_other() -> None:
    for name in access.SERVICES:
        inboxes = [s for s in access.subscribe_allowed(name) if s.startswith("_INBOX")]
        assert inboxes == [f"_INBOX.{name}.>"]
        assert not any(s.startswith("_INBOX") for s in access.publish_allowed(name))


def test_only_the_referee_may_write_the_log_and_only_the_dealer_the_seeds() -> None:
    writers = [n for n in access.SERVICES if subjects.EVENTS_ALL in access.publish_allowed(n)]
    assert writers == ["referee"]
    seeds = f"$KV.{subjects.SEEDS_BUCKET}.>"
    assert [n for n in access.SERVICES if seeds in access.publish_allowed(n)] == ["dealer"]
    readers = [
        n
        for n in access.SERVICES
        if any(f"KV_{subjects.SEEDS_BUCKET}" in s for s in access.publish_allowed(n))
    ]
    assert readers == ["dealer"]


# The purges a service may do, each of its own bucket: the bot's, of its seat book, to remove
# the markers that seats given back leave (services/bot/seats.py, SeatBook._sweep; it may
# delete every key there anyway); the lobby's, of its listing's snapshot, to remove the chunks
# of the snapshot it replaced (services/lobby/snapshot.py). No service may purge the log, the
# seeds or any other stream.
OWN_PURGES = {
    "bot": [f"$JS.API.STREAM.PURGE.KV_{access.BOT_SEATS_BUCKET}"],
    "lobby": [f"$JS.API.STREAM.PURGE.OBJ_{subjects.LOBBY_LISTING_BUCKET}"],
}


def test_no_service_may_delete_purge_or_list_streams() -> None:
    for name in access.SERVICES:
        purges = [s for s in access.publish_allowed(name) if "STREAM.PURGE" in s]
        assert purges == OWN_PURGES.get(name, []), (name, purges)
        for subject in access.publish_allowed(name):
            if subject in purges:
                continue
            assert not re.search(r"STREAM\.(DELETE|PURGE|UPDATE|MSG\.DELETE)\.", subject), subject
            assert not re.fullmatch(r"\$JS\.API(\.[A-Z]+)?\.>", subject), subject  # no blanket
            assert "STREAM.NAMES" not in subject and "STREAM.LIST" not in subject


def test_the_server_block_names_every_key_and_gives_admin_every_right() -> None:
    keys = {name: f"U{name.upper():A<55}"[:56] for name in access.PRINCIPALS}
    block = access.authorization(keys)
    for key in keys.values():
        assert block.count(key) == 1
    admin = block.split(f"nkey: {keys['admin']}")[1].split("\n")[0]
    assert "permissions" not in admin
    assert block.count("allow_responses: true") == len(access.SERVICES)


@pytest.mark.parametrize("name", ["single-node", "cluster-1", "cluster-2", "cluster-3"])
def test_the_deploy_configs_run_with_the_identities(tmp_path: Path, name: str) -> None:
    """deploy/nats/*.conf include what ``python -m match_bus.access init`` writes, and
    nats-server accepts the result (``-t``: parse and check, then exit)."""
    (tmp_path / "deploy" / "nats").mkdir(parents=True)
    conf = tmp_path / "deploy" / "nats" / f"{name}.conf"
    shutil.copy(DEPLOY / f"{name}.conf", conf)
    assert access.main(["init", "--var", str(tmp_path / "var")]) == 0
    checked = subprocess.run(
        [nats_server_binary(), "-c", str(conf), "-t"], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert "valid" in checked.stderr + checked.stdout
