"""The lobby's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter(
    "match_lobby_requests_total",
    "gRPC calls handled by the lobby, by method and final status code.",
    ["method", "code"],
)
LATENCY = Histogram(
    "match_lobby_request_seconds",
    "Time to answer a unary gRPC call, by method (Watch is not timed: it is a stream).",
    ["method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
WATCHES = Gauge("match_lobby_watch_streams", "Watch streams open now.")
PLAYS = Gauge("match_lobby_play_streams", "Play streams (a seat's commands and view) open now.")
WATCHED_TABLES = Gauge(
    "match_lobby_watched_tables",
    "Tables this lobby follows for Watch now: one subscription to their pushed records each.",
)
FEED_CATCH_UPS = Counter(
    "match_lobby_feed_catch_ups_total",
    "Times a followed table was read from the lobby's copy of the log rather than pushed, by "
    "reason (start: a table newly followed; gap: a pushed record was missing; quiet: nothing "
    "pushed while the log grew; error: following it again after an error).",
    ["reason"],
)
LIMITED = Counter(
    "match_lobby_rate_limited_total",
    "Calls refused RESOURCE_EXHAUSTED by a limit, by kind (player, address, create, sign_in: "
    "rates; "
    "waiting_tables, address_tables, bots, address_bots: counts; watch_player, "
    "watch_address, watch_lobby, watch_tables: Watch streams open at once).",
    ["kind"],
)
QUARANTINED = Gauge(
    "match_lobby_quarantined_tables",
    "Tables the listing leaves out: their log holds a record the lobby cannot use.",
)
STRAY = Counter(
    "match_lobby_stray_records_total",
    "Records on a subject under match.events.> that names no table, skipped by the listing.",
)
LISTING_SNAPSHOT_WRITTEN = Counter(
    "match_lobby_listing_snapshots_written_total",
    "Snapshots of the table listing this lobby stored (LOBBY_SNAPSHOT_EVERY_S), for a lobby "
    "that starts to read the log from.",
)
LISTING_SNAPSHOT_FAILED = Counter(
    "match_lobby_listing_snapshot_failures_total",
    "Snapshots of the table listing this lobby could not store (NATS down, the bucket refused): "
    "a lobby that starts reads the log from an older one.",
)
LISTING_SNAPSHOT_UNUSED = Counter(
    "match_lobby_listing_snapshot_unused_total",
    "Starts that read the whole log because the listing's snapshot could not be read or trusted "
    "(the log line says why); a start with no snapshot yet is not counted.",
)
LISTING_SNAPSHOT_STOPPED = Gauge(
    "match_lobby_listing_snapshot_stopped",
    "1 while this lobby stores no listing snapshot: its listing no longer holds what its copy "
    "of the log holds (a record it folded was removed, a repair; or one it read past is "
    "there); restart it so that it reads the log again.",
)
LISTING_SNAPSHOT_BYTES = Gauge(
    "match_lobby_listing_snapshot_bytes",
    "The size of the last listing snapshot this lobby stored (compressed).",
)
PRESENCE_FAILURES = Counter(
    "match_lobby_presence_failures_total",
    "Presence commands (a seated player's last Watch stream ended, or they came back) the "
    "referee did not take: refused, not answering, or NATS down. Nothing else follows.",
)
ARCHIVED = Counter(
    "match_lobby_tables_archived_total",
    "Finished tables the listing let go of, their game over for longer than it keeps them "
    "(LOBBY_KEEP_FINISHED_S).",
)
