"""The files an overlay's secretGenerator turns into Kubernetes Secrets, made once:

``python -m match_deploy.secrets deploy/k8s/overlays/<name>/secrets``

writes, each mode 0600 in a 0700 folder, and keeps any secret that exists (run it again
safely; the two server files, made from the seeds, are written again every time, so a new
grant in match_bus.access reaches NATS on the next apply):

- ``nats-<service>.nk``, ``nats-admin.nk``: one NKey seed per service and the operator's
  (match_bus.access), ``nats-routes.secret``: the route password;
- ``nats-auth.conf``: the clients' authorization block, ``nats-routes.conf``: the route password
  and the three nodes' route URLs (the NATS StatefulSet's stable names), both for the servers;
- ``token.secret`` (the lobby's token secret), ``bot.key`` (lobby and bot);
- ``ledger.key``: the ledger's checkpoint signing key, and ``ledger.vkey``, its verifier key, to
  publish for auditors.

The folder is in .gitignore: secrets never go into git. Keep a copy where you keep secrets.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path

from match_audit.keys import load_or_create
from match_bus.access import Identities, route_variables
from match_bus.secretfiles import write_secret

NAMESPACE = "match"
NATS_NODES = 3


def routes(namespace: str = NAMESPACE, nodes: int = NATS_NODES) -> list[str]:
    """The route address of every NATS node of deploy/k8s (StatefulSet nats, Service
    nats-cluster)."""
    return [f"nats-{i}.nats-cluster.{namespace}.svc.cluster.local:6222" for i in range(nodes)]


def make(folder: Path, namespace: str = NAMESPACE) -> list[Path]:
    """Write whatever is missing in ``folder``; every file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    identities = Identities(folder).ensure()
    derived = {
        "nats-auth.conf": identities.authorization(),
        "nats-routes.conf": route_variables(identities.route_password, routes(namespace)),
    }
    for name, text in derived.items():
        (folder / name).unlink(missing_ok=True)
        write_secret(folder / name, text.encode())
    for name, size in (("token.secret", 32), ("bot.key", 16)):
        if not (folder / name).exists():
            write_secret(folder / name, secrets.token_hex(size).encode() + b"\n")
    load_or_create(folder / "ledger.key", "match.local/ledger")  # and ledger.vkey beside it
    return sorted(folder.iterdir())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m match_deploy.secrets",
        description="Make the secret files of a deploy/k8s overlay (kept if they exist).",
    )
    parser.add_argument("folder", type=Path, help="deploy/k8s/overlays/<name>/secrets")
    parser.add_argument("--namespace", default=NAMESPACE)
    args = parser.parse_args(argv)
    made = make(args.folder, args.namespace)
    print(f"{len(made)} files in {args.folder}; publish {args.folder / 'ledger.vkey'} for auditors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
