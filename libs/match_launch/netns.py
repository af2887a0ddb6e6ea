"""A network of its own for each NATS node on this machine, so links between them can be cut.

:class:`NetLab` makes, for a run, one Linux network namespace per node (``ip netns``), a bridge
in the root namespace and one veth pair per node (one end on the bridge, the other the node's
``eth0``), each node with an address of its own on a private /24 (``10.77.S.11``, ``.12``, ...;
the bridge is ``.1``). The services and the players stay in the root namespace and reach every
node through the bridge; the nodes reach each other through it too.

Faults, all inside the nodes' own namespaces (nothing outside this machine is touched):

* :meth:`NetLab.cut` / :meth:`NetLab.heal`: nftables drops every packet between two nodes (both
  ways, in both nodes' namespaces), as a partition does: silently, no reset. The clients' links
  to both nodes stay up, so a client of a cut-off minority node still reaches it and its
  requests must be refused there.
* :meth:`NetLab.slow`: a slow, lossy link on one node: ``tc netem`` delay and loss where the
  kernel has netem; where it has not (a kernel built without ``sch_netem``), the nearest right
  thing: a token bucket (``tc tbf``: a narrow link whose queue delays packets) and nftables
  dropping that share of the node's packets at random.

Every name a run makes starts with ``mcp`` and the owning process id in hex (``mcp1f2ab``,
``mcp1f2ah1``, ``mcp1f2an1``): :meth:`NetLab.down` removes a run's own (in a ``finally``, and on
SIGTERM), and :func:`sweep` removes those whose owner is no longer running (a run killed with
SIGKILL), at the start of every run. Needs root, iproute2 (``ip``, ``tc``) and ``nft``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

PREFIX = "mcp"
NAME = re.compile(rf"^{PREFIX}([0-9a-f]+)([bhn])(\d*)$")
TABLE = "chaos"


class NetLabError(RuntimeError):
    """A command that sets up or changes the namespaces failed (its output says why)."""


def _run(argv: Sequence[str], stdin: str | None = None) -> str:
    done = subprocess.run(list(argv), input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise NetLabError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def _quiet(argv: Sequence[str]) -> None:
    subprocess.run(list(argv), capture_output=True, check=False)


def owner_of(name: str) -> int | None:
    """The process id a name made here belongs to (``mcp1f2ah1`` -> 0x1f2a), or None."""
    found = NAME.match(name)
    return int(found.group(1), 16) if found else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _links() -> list[str]:
    out = _run(["ip", "-o", "link", "show"])
    return [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if ":" in line]


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines() if line]


def stale(names: Sequence[str], alive: set[int] | None = None) -> list[str]:
    """Of ``names``, those made here whose owner is not running (``alive``: the running ones,
    looked up when None)."""
    out = []
    for name in names:
        pid = owner_of(name)
        if pid is None:
            continue
        running = pid in alive if alive is not None else _alive(pid)
        if not running:
            out.append(name)
    return out


def sweep() -> list[str]:
    """Delete the bridges, veths and namespaces of runs that are gone; return their names
    (none where no NetLab could be made: not root, no ``ip``)."""
    if missing_tools():
        return []
    removed = []
    for name in stale(_links()):
        _quiet(["ip", "link", "del", name])
        removed.append(name)
    for name in stale(_namespaces()):
        _quiet(["ip", "netns", "del", name])
        removed.append(name)
    return removed


def missing_tools() -> list[str]:
    """What this machine lacks to make a NetLab (empty when it can)."""
    lacking = [tool for tool in ("ip", "tc", "nft") if shutil.which(tool) is None]
    if os.geteuid() != 0:
        lacking.append("root (network namespaces need CAP_NET_ADMIN)")
    return lacking


def _subnet(owner: int) -> int:
    """A third octet for 10.77.S.0/24 not in use on this machine."""
    used = _run(["ip", "-o", "-4", "addr", "show"])
    for step in range(200):
        octet = 20 + (owner + step) % 200
        if f" 10.77.{octet}." not in used:
            return octet
    raise NetLabError("no free 10.77.x.0/24 subnet")


@dataclass
class NetLab:
    """The namespaces, bridge and links of one run (``size`` nodes)."""

    size: int = 3
    owner: int = field(default_factory=os.getpid)
    octet: int = 0
    cuts: set[frozenset[int]] = field(default_factory=set)  # node pairs cut apart
    lossy: dict[int, int] = field(default_factory=dict)  # node -> percent dropped at random
    shaped: set[int] = field(default_factory=set)  # nodes with a tc qdisc
    is_up: bool = False

    @property
    def tag(self) -> str:
        return f"{PREFIX}{self.owner:x}"

    @property
    def bridge(self) -> str:
        return f"{self.tag}b"

    def namespace(self, i: int) -> str:
        return f"{self.tag}n{i + 1}"

    def host_end(self, i: int) -> str:
        return f"{self.tag}h{i + 1}"

    def host(self, i: int) -> str:
        """Node ``i``'s address."""
        return f"10.77.{self.octet}.{11 + i}"

    @property
    def hosts(self) -> list[str]:
        return [self.host(i) for i in range(self.size)]

    def command(self, i: int, argv: list[str]) -> list[str]:
        """``argv`` run in node ``i``'s namespace (``ip netns exec`` execs it: same process)."""
        return ["ip", "netns", "exec", self.namespace(i), *argv]

    def _in(self, i: int, *argv: str, stdin: str | None = None) -> str:
        return _run(["ip", "netns", "exec", self.namespace(i), *argv], stdin)

    # --- life --------------------------------------------------------------------------------

    def up(self) -> NetLab:
        """Make everything; a failure removes what was made and raises NetLabError."""
        lacking = missing_tools()
        if lacking:
            raise NetLabError(f"network namespaces need {', '.join(lacking)}")
        self.octet = self.octet or _subnet(self.owner)
        self.is_up = True
        try:
            _run(["ip", "link", "add", self.bridge, "type", "bridge"])
            _run(["ip", "addr", "add", f"10.77.{self.octet}.1/24", "dev", self.bridge])
            _run(["ip", "link", "set", self.bridge, "up"])
            for i in range(self.size):
                ns, outer, inner = self.namespace(i), self.host_end(i), f"{self.tag}c{i + 1}"
                _run(["ip", "netns", "add", ns])
                _run(["ip", "link", "add", outer, "type", "veth", "peer", "name", inner])
                _run(["ip", "link", "set", inner, "netns", ns])
                _run(["ip", "link", "set", outer, "master", self.bridge])
                _run(["ip", "link", "set", outer, "up"])
                self._in(i, "ip", "link", "set", inner, "name", "eth0")
                self._in(i, "ip", "addr", "add", f"{self.host(i)}/24", "dev", "eth0")
                self._in(i, "ip", "link", "set", "eth0", "up")
                self._in(i, "ip", "link", "set", "lo", "up")
                self._rules(i)
        except BaseException:
            self.down()
            raise
        return self

    def down(self) -> None:
        """Remove the run's bridge, links and namespaces (whatever exists of them); never
        raises. The nodes' processes are not this class's: stop them first."""
        if not self.is_up:
            return
        for i in range(self.size):
            _quiet(["ip", "link", "del", self.host_end(i)])  # its peer goes with it
            _quiet(["ip", "netns", "del", self.namespace(i)])
        _quiet(["ip", "link", "del", self.bridge])
        self.is_up = False

    def leftovers(self) -> list[str]:
        """This run's names still present (after ``down``: none)."""
        mine = [n for n in [*_links(), *_namespaces()] if owner_of(n) == self.owner]
        return sorted(set(mine))

    # --- faults ------------------------------------------------------------------------------

    def cut(self, i: int, j: int) -> None:
        """Drop every packet between nodes ``i`` and ``j``."""
        self.cuts.add(frozenset((i, j)))
        self._rules(i)
        self._rules(j)

    def heal(self, i: int, j: int) -> None:
        self.cuts.discard(frozenset((i, j)))
        self._rules(i)
        self._rules(j)

    def isolate(self, i: int) -> None:
        """Cut node ``i`` from every other node (its clients still reach it)."""
        for j in range(self.size):
            if j != i:
                self.cut(i, j)

    def heal_all(self) -> None:
        touched = {node for pair in self.cuts for node in pair}
        self.cuts.clear()
        for i in touched:
            self._rules(i)

    def slow(self, i: int, delay_ms: int, loss_percent: int) -> str:
        """Make node ``i``'s link slow and lossy, both ways; return what was applied."""
        try:
            spec = ["netem", "delay", f"{delay_ms}ms", f"{delay_ms // 5}ms", "loss",
                    f"{loss_percent}%"]  # fmt: skip
            self._in(i, "tc", "qdisc", "replace", "dev", "eth0", "root", *spec)
            _run(["tc", "qdisc", "replace", "dev", self.host_end(i), "root", *spec])
            self.shaped.add(i)
            return f"tc netem delay {delay_ms}ms loss {loss_percent}% both ways"
        except NetLabError:
            pass  # no sch_netem in this kernel: a narrow link and random drops instead
        spec = ["tbf", "rate", "256kbit", "burst", "16kbit", "latency", f"{delay_ms * 4}ms"]
        self._in(i, "tc", "qdisc", "replace", "dev", "eth0", "root", *spec)
        _run(["tc", "qdisc", "replace", "dev", self.host_end(i), "root", *spec])
        self.shaped.add(i)
        self.lossy[i] = loss_percent
        self._rules(i)
        return (
            f"no netem in this kernel: tc tbf 256kbit (queue up to {delay_ms * 4}ms) both ways "
            f"and nft dropping {loss_percent}% of packets at random"
        )

    def unslow(self, i: int) -> None:
        if i in self.shaped:
            _quiet(["ip", "netns", "exec", self.namespace(i), "tc", "qdisc", "del", "dev",
                    "eth0", "root"])  # fmt: skip
            _quiet(["tc", "qdisc", "del", "dev", self.host_end(i), "root"])
            self.shaped.discard(i)
        if self.lossy.pop(i, None) is not None:
            self._rules(i)

    def ruleset(self, i: int) -> str:
        """Node ``i``'s nftables table for the cuts and losses now in force (pure)."""
        return ruleset(self.host(0).rsplit(".", 1)[0], i, self.cuts, self.lossy.get(i, 0))

    def _rules(self, i: int) -> None:
        self._in(i, "nft", "-f", "-", stdin=self.ruleset(i))


def ruleset(prefix: str, i: int, cuts: set[frozenset[int]], loss_percent: int = 0) -> str:
    """The nftables script for node ``i`` (addresses ``prefix.11``, ``.12``, ...): one table,
    replaced whole, dropping its traffic with every node it is cut from and ``loss_percent``
    of the rest at random."""
    peers = sorted(j for pair in cuts if i in pair for j in pair if j != i)
    rules_in = [f"    ip saddr {prefix}.{11 + j} drop" for j in peers]
    rules_out = [f"    ip daddr {prefix}.{11 + j} drop" for j in peers]
    if loss_percent:
        rules_in.append(f"    numgen random mod 100 < {loss_percent} drop")
        rules_out.append(f"    numgen random mod 100 < {loss_percent} drop")
    return (
        f"table inet {TABLE}\n"
        f"delete table inet {TABLE}\n"
        f"table inet {TABLE} {{\n"
        "  chain input {\n"
        "    type filter hook input priority 0; policy accept;\n"
        + "".join(r + "\n" for r in rules_in)
        + "  }\n"
        "  chain output {\n"
        "    type filter hook output priority 0; policy accept;\n"
        + "".join(r + "\n" for r in rules_out)
        + "  }\n"
        "}\n"
    )
