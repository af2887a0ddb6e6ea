"""Which metrics and labels a PromQL expression reads, checked against what the services
really export: every service module is imported and the names and label names of the metrics
it registers are read from prometheus_client's registry, so a dashboard panel or an alert that
names a metric or label nobody exports (or a gRPC code or lobby method that does not exist)
fails ``make deploy-check``. Not a PromQL parser (promtool checks the syntax): it reads the
selectors, the matchers and the grouping labels, which is what can go stale."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

TARGET_LABELS = frozenset({"job", "instance"})  # what Prometheus adds to every scraped series
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_SELECTOR = re.compile(r"([a-zA-Z_:][\w:]*)?\s*\{([^}]*)\}")
_MATCHER = re.compile(r"([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*\"((?:[^\"\\]|\\.)*)\"")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"")
_RANGE = re.compile(r"\[[^\]]*\]")
_IDENT = re.compile(r"(?<![\w:.])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()")
_KEYWORDS = frozenset(
    {"and", "or", "unless", "bool", "offset", "inf", "nan", "group_left", "group_right", "by"}
)


@dataclass(frozen=True)
class Reads:
    """What one expression reads: metric name -> the label names its matchers use, the
    matchers' (label, value) pairs for exact and alternative matches, and grouping labels."""

    metrics: dict[str, set[str]]
    values: list[tuple[str, str, str]]  # (metric, label, value)
    grouping: set[str]
    name_patterns: list[str]  # {__name__=~"..."}


def reads(expr: str) -> Reads:
    metrics: dict[str, set[str]] = {}
    values: list[tuple[str, str, str]] = []
    grouping: set[str] = set()
    patterns: list[str] = []
    for match in _GROUPING.finditer(expr):
        grouping |= {label.strip() for label in match.group(2).split(",") if label.strip()}
    rest = _GROUPING.sub(" ", expr)

    def selector(match: re.Match[str]) -> str:
        name = match.group(1) or ""
        labels: set[str] = set()
        for label, op, value in _MATCHER.findall(match.group(2)):
            if label == "__name__":
                patterns.append(value if op == "=~" else re.escape(value))
                continue
            labels.add(label)
            if op in ("=", "=~") and re.fullmatch(r"[\w.+|]+", value):
                values.extend((name, label, v) for v in value.split("|"))
        metrics.setdefault(name, set()).update(labels)
        return " "

    rest = _SELECTOR.sub(selector, rest)
    rest = _RANGE.sub(" ", _STRING.sub(" ", rest))
    for name in _IDENT.findall(rest):
        if name.lower() not in _KEYWORDS and not re.fullmatch(r"\d.*", name):
            metrics.setdefault(name, set())
    metrics.pop("", None)
    return Reads(metrics, values, grouping, patterns)


def exported() -> dict[str, set[str]]:
    """Every series name the services export -> its label names (``le`` on buckets), from the
    registry after importing every module of ``services`` (and match_bus, which counts NATS
    refusals and the connection state), plus ``up``."""
    import prometheus_client

    import services

    importlib.import_module("match_bus.jetstream")
    for module in pkgutil.walk_packages(services.__path__, "services."):
        if module.name.endswith("__main__") or module.name.startswith("services.stack"):
            continue
        importlib.import_module(module.name)
    found: dict[str, set[str]] = {"up": set()}
    registry = prometheus_client.REGISTRY._names_to_collectors  # read only
    for name, collector in registry.items():
        if hasattr(collector, "_labelnames"):  # a metric of prometheus_client's own classes
            labels = set(collector._labelnames)
        else:  # a collector of its own (match_bus.service.GcPauses): what its samples carry
            families = collector.collect()
            labels = {k for f in families for s in f.samples if s.name == name for k in s.labels}
        found[name] = labels | ({"le"} if name.endswith("_bucket") else set())
    return found


def known_values() -> dict[str, set[str]]:
    """Label values that can be checked: gRPC status codes and the lobby's method names."""
    import grpc  # type: ignore[import-untyped]

    from match.v1 import lobby_pb2, race_service_pb2

    methods = {
        method.name
        for module in (lobby_pb2, race_service_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    }
    return {"code": {c.name for c in grpc.StatusCode}, "method": methods}


def problems(
    expr: str,
    metrics: Mapping[str, set[str]],
    recorded: Mapping[str, str],
    values: Mapping[str, set[str]],
) -> list[str]:
    """What is wrong with ``expr``: names nobody exports or records, labels a metric does not
    have, values that cannot occur. ``recorded``: recording rule name -> its expression."""
    found: list[str] = []
    seen = reads(expr)
    available = set(TARGET_LABELS)
    for pattern in seen.name_patterns:
        names = [n for n in metrics if re.fullmatch(pattern, n)]
        if not names:
            found.append(f"no exported metric matches __name__=~{pattern!r}")
        for name in names:
            available |= metrics[name]
    for name, labels in seen.metrics.items():
        if ":" in name:
            if name not in recorded:
                found.append(f"{name}: no recording rule makes it")
                continue
            inner = reads(recorded[name])
            own = {label for n in inner.metrics if n in metrics for label in metrics[n]}
            available |= own | inner.grouping
            continue
        if name not in metrics:
            found.append(f"{name}: no service exports it")
            continue
        available |= metrics[name]
        for label in labels - metrics[name] - TARGET_LABELS:
            found.append(f"{name}: has no label {label!r} (it has {sorted(metrics[name])})")
    for name, label, value in seen.values:
        if label in values and value not in values[label] and name.startswith("match_lobby"):
            found.append(f"{name}{{{label}={value!r}}}: no such {label}")
        elif label == "code" and value not in values["code"]:
            found.append(f"{name}{{code={value!r}}}: not a gRPC status code")
    for label in seen.grouping - available:
        found.append(f"groups by {label!r}, which none of its metrics has")
    return found


def check_all(exprs: Iterable[tuple[str, str]], recorded: Mapping[str, str]) -> list[str]:
    """``(where, expr)`` pairs -> every problem, prefixed with where it is."""
    metrics, values = exported(), known_values()
    return [
        f"{where}: {problem}"
        for where, expr in exprs
        for problem in problems(expr, metrics, recorded, values)
    ]
