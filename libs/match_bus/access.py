"""Who may do what on NATS: one identity per service, and the one table of their permissions.

Every service connects with its own NKey (an Ed25519 key pair: the service keeps the seed, the
server's configuration holds only the public key, and the connection proves possession by
signing the server's nonce, so no secret ever crosses the wire or sits in the server's config).
Each identity gets only the subjects its code uses; the operator's ``admin`` identity has every
right and is used by no service. Nobody connects without an identity.

:data:`PERMISSIONS` is the single source: :func:`authorization` renders it into the
nats-server configuration that `make run`, `make run-cluster`, `make chaos` and the tests run
with, and :func:`markdown` into the table in docs/operations.md (a test keeps the two equal).
``python -m match_bus.access`` makes a deployment's identities and prints or writes either.

Inboxes: each identity's replies and consumer deliveries arrive under its own prefix
(``_INBOX.<name>.``, set by :func:`connect_options`), and it may subscribe to that prefix only,
so no service can read the answers another one gets (the dealer's deals to the referee, say).
Replies: ``allow_responses`` lets a service answer the messages it receives (a request, a
JetStream delivery's ack or flow control) without a grant to publish to anybody's inbox.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

from match_bus import subjects
from match_bus.secretfiles import read_secret, write_secret

ADMIN = "admin"
SERVICES = ("dealer", "ledger", "referee", "lobby", "bot", "players")
PRINCIPALS = (*SERVICES, ADMIN)

# The buckets of the bot, named here so the table needs no import of a service.
BOT_SEATS_BUCKET = "MATCH_BOT_SEATS"
BOT_REPLICAS_BUCKET = "MATCH_BOT_REPLICAS"


@dataclass(frozen=True, slots=True)
class Grant:
    """One subject an identity may publish to (``pub``) or subscribe to (``sub``), and why."""

    action: str  # "pub" or "sub"
    subject: str
    why: str


def inbox(name: str) -> str:
    """The inbox prefix of identity ``name``: its replies and deliveries arrive under it."""
    return f"_INBOX.{name}"


def _js(operation: str, stream: str, why: str, *, more: bool = True) -> list[Grant]:
    """The JetStream API ``operation`` on ``stream`` (``$JS.API.<operation>.<stream>``), and
    with ``more`` its longer forms too (``...<stream>.<consumer>[.<filter>]``)."""
    subject = f"$JS.API.{operation}.{stream}"
    grants = [Grant("pub", subject, why)]
    if more:
        grants.append(Grant("pub", f"{subject}.>", why))
    return grants


def _bucket(bucket: str, why: str, *, watch: bool = False, sweep: bool = False) -> list[Grant]:
    """Make, read and write the KV bucket ``bucket``; with ``watch`` also list or watch it; with
    ``sweep`` also remove the markers its deleted keys leave."""
    stream = f"KV_{bucket}"
    grants = [
        *_js("STREAM.CREATE", stream, f"make the bucket {bucket} ({why})", more=False),
        *_js("STREAM.INFO", stream, f"open the bucket {bucket}", more=False),
        *_js("STREAM.MSG.GET", stream, f"read a key of {bucket}", more=False),
        *_js("DIRECT.GET", stream, f"read a key of {bucket}"),
        Grant("pub", f"$KV.{bucket}.>", f"write, update and delete keys of {bucket}"),
    ]
    if watch:
        grants += [
            *_js("CONSUMER.CREATE", stream, f"list or watch the keys of {bucket}"),
            *_js("CONSUMER.INFO", stream, f"how far a listing of {bucket} has come"),
            *_js("CONSUMER.DELETE", stream, f"stop listing the keys of {bucket}"),
        ]
    if sweep:
        why_sweep = f"remove the markers the deleted keys of {bucket} leave"
        grants += _js("STREAM.PURGE", stream, why_sweep, more=False)
    return grants


def _object_store(bucket: str, why: str) -> list[Grant]:
    """Make, read and replace the objects of the object store ``bucket``: a read follows the
    object's chunks with an ordered consumer; a write purges the chunks it replaced."""
    stream = f"OBJ_{bucket}"
    return [
        *_js("STREAM.CREATE", stream, f"make the bucket {bucket} ({why})", more=False),
        *_js("STREAM.INFO", stream, f"open the bucket {bucket}", more=False),
        *_js("STREAM.MSG.GET", stream, f"read an object's description in {bucket}", more=False),
        *_js("DIRECT.GET", stream, f"read an object's description in {bucket}"),
        *_js(
            "STREAM.PURGE",
            stream,
            f"remove the chunks of a replaced object of {bucket}",
            more=False,
        ),
        *_js("CONSUMER.CREATE", stream, f"read an object's chunks from {bucket}"),
        *_js("CONSUMER.DELETE", stream, f"end a read of {bucket}"),
        _flow_control(stream),
        Grant("pub", f"$O.{bucket}.>", f"write the objects of {bucket}"),
    ]


def _events_stream(why: str) -> list[Grant]:
    grants = [
        *_js("STREAM.CREATE", subjects.EVENTS_STREAM, f"make the table log ({why})", more=False),
        *_js("STREAM.INFO", subjects.EVENTS_STREAM, "the table log's state", more=False),
    ]
    why_copy = f"make the readers' copies of the log ({why})"
    for copy in subjects.EVENTS_COPIES.values():
        grants += [
            *_js("STREAM.CREATE", copy, why_copy, more=False),
            *_js("STREAM.INFO", copy, why_copy, more=False),
        ]
    return grants


def _read_records(why: str) -> list[Grant]:
    return [
        *_js("STREAM.MSG.GET", subjects.EVENTS_STREAM, why, more=False),
        *_js("DIRECT.GET", subjects.EVENTS_STREAM, why),
    ]


def _flow_control(stream: str) -> Grant:
    """Its ordered consumers' flow control on ``stream``: a stalled consumer's heartbeat names the
    subject to answer in a header, not as a reply subject, so ``allow_responses`` does not cover
    it (a chaos run saw the lobby refused it once, and its Watch stall)."""
    return Grant("pub", f"$JS.FC.{stream}.>", "answer its ordered consumers' flow control")


def _follow_events(why: str) -> list[Grant]:
    return [
        *_js("CONSUMER.CREATE", subjects.EVENTS_STREAM, why),
        *_js("CONSUMER.DELETE", subjects.EVENTS_STREAM, f"end a consumer ({why})"),
        _flow_control(subjects.EVENTS_STREAM),
    ]


def _follow_copy(reader: str, why: str) -> list[Grant]:
    """Consumers on ``reader``'s own copy of the log, and on nothing else: a consumer's name is
    one subject token, and a create request may name any consumer in its body, so the one
    boundary NATS enforces is the stream (see subjects.EVENTS_COPIES)."""
    copy = subjects.EVENTS_COPIES[reader]
    return [
        *_js("CONSUMER.CREATE", copy, f"{why} (its own copy of the log)"),
        *_js("CONSUMER.DELETE", copy, f"end a consumer ({why})"),
        _flow_control(copy),
    ]


def _own_inbox(name: str) -> Grant:
    return Grant("sub", f"{inbox(name)}.>", "its own replies and consumer deliveries")


def _probe() -> Grant:
    return Grant(
        "pub",
        "$JS.API.INFO",
        "probe that its NATS node reaches JetStream's quorum (match_bus.failover)",
    )


PERMISSIONS: dict[str, list[Grant]] = {
    "referee": [
        Grant("sub", subjects.REFEREE_ALL, "the commands of the partitions it holds"),
        Grant("pub", subjects.EVENTS_ALL, "append table records: the only writer of the log"),
        Grant("pub", subjects.DEALER_COMMIT, "ask the dealer to commit to a game's seed"),
        Grant("pub", subjects.DEALER_DEAL, "ask the dealer for the deal"),
        Grant("pub", subjects.DEALER_REVEAL, "ask the dealer to publish a finished game's seed"),
        *_events_stream("whoever starts first"),
        *_read_records("read a table's last record (the append fence)"),
        *_follow_events("read the tables of a partition it takes on"),
        # No listing or watching: a lease round reads the keys without a consumer.
        *_bucket(subjects.REFEREE_LEASES_BUCKET, "partition leases"),
        *_bucket(subjects.REFEREE_MARKS_BUCKET, "where a partition's live tables begin"),
        _probe(),
        _own_inbox("referee"),
    ],
    "lobby": [
        Grant("pub", subjects.REFEREE_ALL, "forward players' commands to the referee"),
        *_js("STREAM.INFO", subjects.EVENTS_STREAM, "the table log's state", more=False),
        *_read_records("a table's last record (where Watch catches up to)"),
        *_follow_copy("lobby", "Watch a table; follow the log for the table listing"),
        Grant("sub", subjects.LIVE_ALL, "a watched table's records, pushed by its copy of the log"),
        *_js("STREAM.INFO", subjects.LOBBY_EVENTS, "whether its copy pushes records", more=False),
        *_object_store(subjects.LOBBY_LISTING_BUCKET, "a checkpoint of the table listing"),
        Grant("pub", subjects.PLAYERS_QUERY, "ask the players service for profiles and boards"),
        _probe(),
        _own_inbox("lobby"),
    ],
    "dealer": [
        Grant("sub", "match.dealer.>", "the referee's commit, deal and reveal requests"),
        *_bucket(subjects.SEEDS_BUCKET, "the only holder of seeds"),
        *_read_records("check that a game is over before its seed is revealed"),
        _probe(),
        _own_inbox("dealer"),
    ],
    "ledger": [
        Grant("sub", subjects.LEDGER_RECORDS, "answer requests for a table's stored records"),
        *_events_stream("whoever starts first"),
        *_read_records("read a record again"),
        *_js("CONSUMER.CREATE", subjects.EVENTS_STREAM, "its durable consumer of the log"),
        *_js("CONSUMER.DURABLE.CREATE", subjects.EVENTS_STREAM, "its durable consumer"),
        *_js("CONSUMER.INFO", subjects.EVENTS_STREAM, "its consumer's state"),
        *_js("CONSUMER.MSG.NEXT", subjects.EVENTS_STREAM, "pull the next batch of records"),
        *_js("CONSUMER.RESET", subjects.EVENTS_STREAM, "have unacked records delivered again"),
        Grant("pub", f"$JS.ACK.{subjects.EVENTS_STREAM}.>", "ack records once committed"),
        _probe(),
        _own_inbox("ledger"),
    ],
    "players": [
        Grant("sub", subjects.PLAYERS_QUERY, "answer the lobby's questions about players"),
        *_js("STREAM.INFO", subjects.EVENTS_STREAM, "the table log's state", more=False),
        *_read_records("where a table's records begin and end in the log"),
        *_follow_copy("players", "follow the log from where its store stopped; read a table"),
        _probe(),
        _own_inbox("players"),
    ],
    "bot": [
        *_bucket(BOT_SEATS_BUCKET, "the seats bots play", watch=True, sweep=True),
        *_bucket(BOT_REPLICAS_BUCKET, "bot replicas' heartbeats", watch=True),
        _probe(),
        _own_inbox("bot"),
    ],
}


def publish_allowed(name: str) -> list[str]:
    return [g.subject for g in PERMISSIONS[name] if g.action == "pub"]


def subscribe_allowed(name: str) -> list[str]:
    return [g.subject for g in PERMISSIONS[name] if g.action == "sub"]


# --- identities ---------------------------------------------------------------------------


def new_seed() -> bytes:
    """A new NKey user seed (``SU...``)."""
    import nkeys  # type: ignore[import-untyped]

    seed: bytes = nkeys.encode_seed(secrets.token_bytes(32), nkeys.PREFIX_BYTE_USER)
    return seed


def public_key(seed: bytes) -> str:
    """The public key (``U...``) of an NKey user seed."""
    import nkeys

    key: bytes = nkeys.from_seed(bytearray(seed)).public_key
    return key.decode()


@dataclass(frozen=True, slots=True)
class Identities:
    """A deployment's NATS identities: one seed file per principal in ``folder`` (mode 0600,
    the folder 0700), made once and kept, and the route password of a cluster's nodes."""

    folder: Path

    def ensure(self) -> Identities:
        """Make whatever is missing; never replace an existing seed (rotation is by hand)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o700)
        for name in PRINCIPALS:
            path = self.seed_file(name)
            if not path.exists():
                write_secret(path, new_seed() + b"\n")
        if not self.route_file.exists():
            write_secret(self.route_file, secrets.token_hex(24).encode() + b"\n")
        return self

    def seed_file(self, name: str) -> Path:
        return self.folder / f"nats-{name}.nk"

    @property
    def route_file(self) -> Path:
        return self.folder / "nats-routes.secret"

    def public_key(self, name: str) -> str:
        return public_key(read_secret(self.seed_file(name)).strip())

    @property
    def route_password(self) -> str:
        return read_secret(self.route_file).decode().strip()

    def authorization(self) -> str:
        """The nats-server ``authorization`` block for these identities."""
        return authorization({name: self.public_key(name) for name in PRINCIPALS})

    def connect_options(self, name: str) -> dict[str, str]:
        """What ``nats.connect`` needs to connect as ``name``."""
        return connect_options(str(self.seed_file(name)), name)


def connect_options(seed_file: str, name: str) -> dict[str, str]:
    """``nats.connect`` keyword arguments for identity ``name`` with its seed in ``seed_file``
    (the file's permissions are checked first: it must be readable by its owner only)."""
    read_secret(Path(seed_file))
    return {"nkeys_seed": seed_file, "inbox_prefix": inbox(name)}


# --- renderings ---------------------------------------------------------------------------


def _quoted(items: list[str], indent: str) -> str:
    return "\n".join(f'{indent}"{item}"' for item in items)


def authorization(keys: dict[str, str]) -> str:
    """The nats-server configuration block that gives each of ``keys`` (name -> public key)
    exactly its :data:`PERMISSIONS`; ``admin`` gets every right. No anonymous access."""
    users = []
    for name in PRINCIPALS:
        if name == ADMIN:
            users.append(
                f"    # {name}: the operator, every right; used by no service\n"
                f"    {{ nkey: {keys[name]} }}"
            )
            continue
        users.append(
            f"    # {name}\n"
            f"    {{ nkey: {keys[name]}, permissions: {{\n"
            f"        publish: {{ allow: [\n{_quoted(publish_allowed(name), ' ' * 10)}\n"
            f"        ] }}\n"
            f"        subscribe: {{ allow: [\n{_quoted(subscribe_allowed(name), ' ' * 10)}\n"
            f"        ] }}\n"
            f"        allow_responses: true\n"
            f"    }} }}"
        )
    return "authorization {\n  users: [\n" + "\n".join(users) + "\n  ]\n}\n"


def route_variables(password: str, routes: list[str]) -> str:
    """nats-server variables for a cluster's routes: ``MATCH_ROUTE_PASSWORD`` (what a node
    accepts) and ``MATCH_ROUTE_<i>`` (the URL, password included, that reaches node i)."""
    lines = [f'MATCH_ROUTE_PASSWORD: "{password}"']
    for index, address in enumerate(routes, start=1):
        lines.append(f'MATCH_ROUTE_{index}: "nats-route://route:{password}@{address.strip()}"')
    return "\n".join(lines) + "\n"


def markdown() -> str:
    """The permissions as the Markdown table in docs/operations.md: one row per identity,
    action and reason (a subject and its longer forms, ``X`` and ``X.>``, as ``X[.>]``)."""
    lines = ["| identity | may | subjects | why |", "| --- | --- | --- | --- |"]
    for name in SERVICES:
        rows: list[tuple[str, str, list[str]]] = []
        for grant in PERMISSIONS[name]:
            may = "publish" if grant.action == "pub" else "subscribe"
            if rows and rows[-1][:2] == (may, grant.why):
                rows[-1][2].append(grant.subject)
            else:
                rows.append((may, grant.why, [grant.subject]))
        for may, why, found in rows:
            shown = [f"`{s}[.>]`" if f"{s}.>" in found else f"`{s}`" for s in found]
            shown = [s for s, raw in zip(shown, found, strict=True) if raw[:-2] not in found]
            lines.append(f"| {name} | {may} | {' '.join(shown)} | {why} |")
        lines.append(f"| {name} | reply | to a message it received | its answers, acks |")
    lines.append(f"| {ADMIN} | everything | | the operator's own identity; no service uses it |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m match_bus.access",
        description="Make a deployment's NATS identities and the server's configuration. "
        "init: the seeds in <var>/secrets/ (kept if they exist), the clients' authorization "
        "block in <var>/nats-auth.conf and the route variables in <var>/nats-routes.conf "
        "(what deploy/nats/*.conf include). authorization, markdown: print them.",
    )
    parser.add_argument("command", choices=["init", "authorization", "markdown"])
    parser.add_argument("--var", type=Path, default=Path("var"), help="the data folder (var)")
    parser.add_argument(
        "--routes",
        default="127.0.0.1:6222,127.0.0.1:6223,127.0.0.1:6224",
        help="the cluster's route addresses, one variable MATCH_ROUTE_<i> each",
    )
    args = parser.parse_args(argv)
    if args.command == "markdown":
        sys.stdout.write(markdown())
        return 0
    identities = Identities(args.var / "secrets")
    if args.command == "authorization":
        sys.stdout.write(identities.authorization())
        return 0
    identities.ensure()
    auth, routes = args.var / "nats-auth.conf", args.var / "nats-routes.conf"
    for path, text in (
        (auth, identities.authorization()),
        (routes, route_variables(identities.route_password, args.routes.split(","))),
    ):
        path.unlink(missing_ok=True)
        write_secret(path, text.encode())  # the route password is in one of them
    print(f"identities in {identities.folder}; server configuration in {auth} and {routes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
