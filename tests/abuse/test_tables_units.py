"""The pure parts of the table limits: client addresses, the referee's expiry, the lobby's
caps on a listing fed by hand, audit page tokens and the settings."""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import common_pb2, referee_pb2
from match_bus.records import StoredRecord
from services.ledger.audit import _page_token, _parse_page_token
from services.lobby.config import DEFAULT_CAPS, DEFAULT_CREATE_LIMIT, ConfigError, LobbyConfig
from services.lobby.directory import TableDirectory
from services.lobby.errors import ApiError
from services.lobby.limits import Rate
from services.lobby.quotas import CAP_RETRY_MS, Caps, TableQuotas
from services.peers import client_address
from services.referee.table import EXPIRED, Table, TableRefusal, check_join, check_start, rebuild

# --- client addresses -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        ("ipv4:203.0.113.7:53124", "ipv4:203.0.113.7"),
        ("ipv4:203.0.113.7:1", "ipv4:203.0.113.7"),  # another connection, the same address
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", "ipv6:2001:db8:1:2::/64"),
        ("ipv6:[2001:db8:1:2:ffff::9]:80", "ipv6:2001:db8:1:2::/64"),  # the same /64
        ("ipv6:[::ffff:198.51.100.4]:9", "ipv4:198.51.100.4"),  # dual stack sees v4 mapped
        ("ipv6:[fe80::1%eth0]:5", "ipv6:fe80::/64"),
        ("unix:/run/match.sock", "unix"),
        ("unix:", "unix"),
        ("something else", "something else"),
    ],
)
def test_a_client_is_its_address_without_the_port(peer: str, key: str) -> None:
    assert client_address(peer) == key


def test_another_64_is_another_client() -> None:
    assert client_address("ipv6:[2001:db8:1:2::1]:1") != client_address("ipv6:[2001:db8:1:3::1]:1")


# --- the referee's expiry ---------------------------------------------------------------------


def envelope(number: int, at: int, **event: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id="t0000001",
        event_number=number,
        server_time_ms=at,
        table=common_pb2.TableEvent(**event),  # type: ignore[arg-type]
    )


def created(at: int, expires_at: int) -> referee_pb2.TableRecord:
    made = common_pb2.TableEvent.TableCreated(
        seats=2, visibility=common_pb2.VISIBILITY_OPEN, creator="ann", expires_at_ms=expires_at
    )
    seated = common_pb2.TableEvent.PlayerSeated(seat=1, player_id="ann", display_name="Ann")
    record = referee_pb2.TableRecord(table_id="t0000001", first_event_number=1, record_number=1)
    record.events.extend(
        [envelope(1, at, table_created=made), envelope(2, at, player_seated=seated)]
    )
    return record


def expired_record(due: int) -> referee_pb2.TableRecord:
    record = referee_pb2.TableRecord(table_id="t0000001", first_event_number=3, record_number=2)
    record.events.append(envelope(3, due, table_expired=common_pb2.TableEvent.TableExpired()))
    return record


def test_a_waiting_table_expires_at_its_expires_at_ms() -> None:
    table = rebuild("t0000001", [(created(1_000, 601_000), StoredRecord(1, b""))])
    assert table is not None
    assert table.expiry_due(600_000) == 601_000


def test_a_table_made_before_expiry_existed_expires_after_the_default() -> None:
    table = rebuild("t0000001", [(created(1_000, 0), StoredRecord(1, b""))])
    assert table is not None
    assert table.expiry_due(5_000) == 6_000


def test_a_started_or_expired_table_has_no_expiry() -> None:
    assert Table("t0000001", seats=2, started=True).expiry_due(1) is None
    assert Table("t0000001", seats=2, expired=True).expiry_due(1) is None


def test_an_expired_table_is_not_loaded_and_refuses_every_seat() -> None:
    records = [
        (created(1_000, 601_000), StoredRecord(1, b"")),
        (expired_record(601_000), StoredRecord(2, b"")),
    ]
    assert rebuild("t0000001", records) is None  # a restart does not load it
    table = rebuild("t0000001", records, finished_too=True)
    assert table is not None and table.expired and table.finished
    join = referee_pb2.TableCommand.JoinTable(display_name="Bob")
    with pytest.raises(TableRefusal) as refused:
        check_join(table, "bob", join)
    assert refused.value.code == EXPIRED == "table_expired"
    with pytest.raises(TableRefusal, match="table_expired"):
        check_start(table, "ann")


# --- the lobby's caps, on a listing fed by hand -----------------------------------------------


class Listing(TableDirectory):
    def __init__(self) -> None:
        super().__init__(js=None)  # type: ignore[arg-type]
        self.events = 0

    def add(self, table_id: str, *events: common_pb2.TableEvent) -> None:
        for event in events:
            self.events += 1
            self._apply_table_event(
                common_pb2.EventEnvelope(table_id=table_id, event_number=self.events, table=event)
            )

    def make(self, table_id: str, seats: int = 4, private: bool = False) -> None:
        visibility = common_pb2.VISIBILITY_PRIVATE if private else common_pb2.VISIBILITY_OPEN
        self.add(
            table_id,
            common_pb2.TableEvent(
                table_created=common_pb2.TableEvent.TableCreated(seats=seats, visibility=visibility)
            ),
            seat(1, "host", bot=False),
        )


def seat(number: int, player: str, bot: bool = True) -> common_pb2.TableEvent:
    return common_pb2.TableEvent(
        player_seated=common_pb2.TableEvent.PlayerSeated(
            seat=number, player_id=player, display_name=player, is_bot=bot
        )
    )


def exhausted(call: object, *args: str) -> ApiError:
    with pytest.raises(ApiError) as refused:
        call(*args)  # type: ignore[operator]
    error = refused.value
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert dict(error.trailers)["retry-after-ms"] == str(CAP_RETRY_MS)
    return error


def test_waiting_tables_are_capped_per_address_and_in_all() -> None:
    listing = Listing()
    quotas = TableQuotas(listing, Caps(waiting_per_address=2, waiting_max=3))
    for n in (1, 2):
        quotas.admit_create("ipv4:a")
        quotas.created(f"a{n}", "ipv4:a")  # not in the listing yet: counted as waiting
    assert "your address has 2 tables" in exhausted(quotas.admit_create, "ipv4:a").message
    listing.make("a1")
    listing.add("a1", common_pb2.TableEvent(table_expired=common_pb2.TableEvent.TableExpired()))
    quotas.admit_create("ipv4:a")  # an expired table no longer counts
    quotas.created("a3", "ipv4:a")
    listing.make("a2"), listing.make("a3"), listing.make("b1")
    assert listing.waiting() == 3
    assert "most tables waiting" in exhausted(quotas.admit_create, "ipv4:c").message


def test_bots_fill_a_table_whole_within_the_budgets() -> None:
    listing = Listing()
    quotas = TableQuotas(listing, Caps(bots_per_address=4, bots_max=5))
    for table in ("a1", "a2", "b1"):
        listing.make(table, seats=3)  # 2 free seats each
        quotas.created(table, f"ipv4:{table[0]}")
    quotas.admit_bots("a1")
    listing.add("a1", seat(2, "bot-1"))  # the bot took one seat: the table holds two
    assert listing.bot_seats("a1") == 2
    quotas.admit_bots("a1")  # its second seat was admitted with the first
    quotas.admit_bots("a2")
    listing.add("a2", common_pb2.TableEvent(fill_requested=common_pb2.TableEvent.FillRequested()))
    assert listing.bot_seats("a2") == 2  # asked for: reserved before any bot sat
    assert listing.bot_seats_in_use() == 4
    listing.make("a3", seats=2)
    quotas.created("a3", "ipv4:a")
    assert "this table's address" in exhausted(quotas.admit_bots, "a3").message
    assert "every bot is busy (5 seats)" in exhausted(quotas.admit_bots, "b1").message


def test_a_private_or_unknown_table_is_left_to_the_referee() -> None:
    listing = Listing()
    quotas = TableQuotas(listing, Caps(bots_per_address=1, bots_max=1))
    listing.make("p1", private=True)
    quotas.admit_bots("p1")
    quotas.admit_bots("nowhere")


def test_a_table_made_here_that_the_listing_has_not_folded_is_not_started_uncounted() -> None:
    """Under load the listing lags the log: a table made here a moment ago may be started before
    the listing knows it. Its free seats are unknown then, so it is refused for now (UNAVAILABLE,
    ask again), never let through past the budgets; once folded it is counted as any other."""
    listing = Listing()
    quotas = TableQuotas(listing, Caps(bots_per_address=3, bots_max=3))
    listing.make("b1", seats=4)
    quotas.created("b1", "ipv4:b")
    quotas.admit_bots("b1")  # 3 of the 3 bot seats
    quotas.created("a1", "ipv4:a")  # made here; the listing has not folded it yet
    with pytest.raises(ApiError) as lagging:
        quotas.admit_bots("a1")
    assert lagging.value.code == grpc.StatusCode.UNAVAILABLE
    assert "ask again with the same request id" in lagging.value.message
    listing.make("a1", seats=4)
    assert "every bot is busy (3 seats)" in exhausted(quotas.admit_bots, "a1").message
    # A table made here that the listing has seen expire is left to the referee (table_expired).
    listing.add("a1", common_pb2.TableEvent(table_expired=common_pb2.TableEvent.TableExpired()))
    assert not listing.known("a1") and listing.is_over("a1")
    quotas.admit_bots("a1")


# --- audit pages and settings -----------------------------------------------------------------


def test_a_page_token_names_the_checkpoint_and_the_last_leaf() -> None:
    assert _parse_page_token(_page_token(120, 41)) == (120, 41)
    assert _parse_page_token("") == (None, -1)
    for bad in ("x", "12", "12.", ".3", "3.12", "-1.2", "1.2.3", "9" * 50 + ".1"):
        assert _parse_page_token(bad) is None, bad


def test_the_table_limits_have_defaults_and_knobs() -> None:
    assert LobbyConfig.from_env({}).caps == DEFAULT_CAPS
    assert LobbyConfig.from_env({}).create_limit == DEFAULT_CREATE_LIMIT
    config = LobbyConfig.from_env(
        {
            "LOBBY_RATE_CREATE": "2",
            "LOBBY_BURST_CREATE": "5",
            "LOBBY_WAITING_PER_ADDR": "3",
            "LOBBY_WAITING_MAX": "0",
            "LOBBY_BOTS_PER_ADDR": "6",
            "LOBBY_BOTS_MAX": "9",
            "LOBBY_RATE_ADDR": "7",
        }
    )
    assert config.create_limit == Rate(2, 5)
    assert config.caps == Caps(3, 0, 6, 9)
    assert config.address_limit.per_s == 7
    with pytest.raises(ConfigError, match="LOBBY_BOTS_MAX must be a whole number"):
        LobbyConfig.from_env({"LOBBY_BOTS_MAX": "2.5"})
