"""Who is calling, for the limits kept per client: the client's address, without its port.

A gRPC peer is ``ipv4:203.0.113.7:53124``, ``ipv6:[2001:db8::1]:53124`` or ``unix:<path>``.
Every connection from one address shares one key, so opening more connections buys nothing.
An IPv6 client is keyed by its /64 (one host is usually given a whole /64, and could otherwise
use a new address per connection; ``ipv6_prefix`` groups wider, as the /56 of one customer); an
IPv4 address mapped into IPv6 (``::ffff:a.b.c.d``, what a dual-stack listener sees) is
the IPv4 address. Every Unix-socket client is one key: they share the machine. Anything else
is keyed as it is.
"""

from __future__ import annotations

import ipaddress
import urllib.parse

IPV6_PREFIX = 64


def client_address(peer: str, ipv6_prefix: int = IPV6_PREFIX) -> str:
    """The key of the client behind ``peer`` (``context.peer()``): ``ipv4:203.0.113.7``,
    ``ipv6:2001:db8::/64`` (by its first ``ipv6_prefix`` bits), ``unix``."""
    kind, _, rest = urllib.parse.unquote(peer).partition(":")  # gRPC writes [ ] as %5B %5D
    if kind == "unix":
        return "unix"
    if kind in ("ipv4", "ipv6"):
        if rest.startswith("["):  # [v6 address]:port
            host = rest[1:].partition("]")[0]
        else:  # v4 address:port, or an address alone
            host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest
        host = host.split("%", 1)[0]  # a zone id (fe80::1%eth0) names the link, not the host
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return peer
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return f"ipv4:{address.ipv4_mapped}"
            network = ipaddress.IPv6Network(f"{address}/{ipv6_prefix}", strict=False)
            return f"ipv6:{network}"
        return f"ipv4:{address}"
    return peer
