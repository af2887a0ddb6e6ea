"""The dealer over a real nats-server: commit, deal and reveal, as a process and in-process."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError

from match.v1 import common_pb2, dealer_pb2, referee_pb2
from match_bench.reveal import ENDED, STARTED, race_record
from match_bus import subjects
from match_bus.folds import TableFolds
from match_bus.jetstream import ensure_stream
from match_bus.records import pack
from match_launch.child import tied
from match_launch.natsserver import NatsServer
from match_rules.race.deal import DEAL_VERSION, deal
from services.dealer.dealer import Dealer
from services.dealer.stores import KvSeedStore, open_seeds

ROOT = Path(__file__).resolve().parents[2]
GAME = "game0000aaaa"
Category = common_pb2.Refusal.Category


def start_dealer(url: str, log_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NATS_URL": url, "METRICS_PORT": "0", "LOG_FORMAT": "json"}
    with log_path.open("ab") as log:
        return subprocess.Popen(
            tied([sys.executable, "-m", "services.dealer"]),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def request(nc: Client, subject: str, data: bytes, within: float = 10.0) -> bytes:
    """A request, retried while nobody listens yet (nats-py does not retry no-responders)."""
    deadline = time.monotonic() + within
    while True:
        try:
            return (await nc.request(subject, data, timeout=2.0)).data
        except (NoRespondersError, NatsTimeoutError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def commit(nc: Client, game_id: str, table_id: str = "") -> dealer_pb2.CommitSeedResponse:
    data = dealer_pb2.CommitSeedRequest(table_id=table_id, game_id=game_id).SerializeToString()
    return dealer_pb2.CommitSeedResponse.FromString(await request(nc, subjects.DEALER_COMMIT, data))


async def deal_of(nc: Client, game_id: str) -> dealer_pb2.DealResponse:
    data = dealer_pb2.DealRequest(
        table_id=game_id, game_id=game_id, game_kind=common_pb2.GAME_KIND_MATCH_RACE
    ).SerializeToString()
    return dealer_pb2.DealResponse.FromString(await request(nc, subjects.DEALER_DEAL, data))


async def reveal(nc: Client, game_id: str) -> dealer_pb2.RevealSeedResponse:
    data = dealer_pb2.RevealSeedRequest(table_id=game_id, game_id=game_id).SerializeToString()
    return dealer_pb2.RevealSeedResponse.FromString(await request(nc, subjects.DEALER_REVEAL, data))


@pytest.fixture
def dealer_process(nats_server: NatsServer, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = start_dealer(nats_server.url, tmp_path / "dealer.log")
    try:
        yield process
    finally:
        stop(process)


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    await ensure_stream(client.jetstream())
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def dealer(nc: Client) -> Dealer:
    js = nc.jetstream()
    return Dealer(KvSeedStore(js, await open_seeds(js)), TableFolds(nc))


async def test_the_dealer_process_commits_deals_and_reveals_after_the_end(
    dealer_process: subprocess.Popen[bytes], nc: Client
) -> None:
    first = await commit(nc, GAME, table_id=GAME)
    again = await commit(nc, GAME)
    assert first.WhichOneof("result") == "commitment", first
    assert again.commitment == first.commitment
    assert first.commitment.deal_version == DEAL_VERSION
    assert len(first.commitment.commitment) == 64

    dealt = await deal_of(nc, GAME)
    assert dealt.WhichOneof("result") == "deal", dealt
    assert dealt.deal.commitment == first.commitment.commitment
    assert [len(board.layout) for board in dealt.deal.race.boards] == [20, 20, 20]

    js = nc.jetstream()
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    early = await reveal(nc, GAME)
    assert early.refusal.code == "game_not_over"
    assert early.refusal.category == Category.CATEGORY_FAILED_PRECONDITION

    await js.publish(subjects.events(GAME), race_record(GAME, 2, ENDED))
    revealed = await reveal(nc, GAME)
    assert revealed.WhichOneof("result") == "seed", revealed
    seed = revealed.seed.seed
    assert hashlib.sha256(seed).hexdigest() == first.commitment.commitment
    assert revealed.seed.commitment == first.commitment.commitment

    expected = deal(seed)
    assert [tuple(board.layout) for board in dealt.deal.race.boards] == list(expected.boards)
    strength = dealer_pb2.BotStrength.Name(dealt.deal.race.bot_strength)
    assert strength == f"BOT_STRENGTH_{expected.bot_strength.name}"
    assert (await deal_of(nc, GAME)).deal == dealt.deal  # the same deal every time


async def test_the_dealer_process_refuses_garbage_and_keeps_answering(
    dealer_process: subprocess.Popen[bytes], nc: Client
) -> None:
    Response = (
        type[dealer_pb2.CommitSeedResponse]
        | type[dealer_pb2.DealResponse]
        | type[dealer_pb2.RevealSeedResponse]
    )
    responses: dict[str, Response] = {
        subjects.DEALER_COMMIT: dealer_pb2.CommitSeedResponse,
        subjects.DEALER_DEAL: dealer_pb2.DealResponse,
        subjects.DEALER_REVEAL: dealer_pb2.RevealSeedResponse,
    }
    bad_utf8 = b"\x12\x02\xff\xfe"  # game_id (field 2) that is not UTF-8
    for subject, kind in responses.items():
        for garbage in (b"\xff\xff\xff", b"garbage", bad_utf8):
            answer = kind.FromString(await request(nc, subject, garbage))
            assert answer.refusal.code == "malformed_request", (subject, garbage)
            assert answer.refusal.category == Category.CATEGORY_INVALID_ARGUMENT

    assert (await commit(nc, "NOT-valid")).refusal.code == "invalid_game_id"
    assert (await commit(nc, GAME)).WhichOneof("result") == "commitment"
    assert dealer_process.poll() is None


async def test_unknown_and_invalid_games_are_refused(dealer: Dealer) -> None:
    unknown = dealer_pb2.DealResponse.FromString(
        await dealer.deal(
            dealer_pb2.DealRequest(
                game_id="nosuchgame1", game_kind=common_pb2.GAME_KIND_MATCH_RACE
            ).SerializeToString()
        )
    )
    assert unknown.refusal.code == "unknown_game"
    assert unknown.refusal.category == Category.CATEGORY_FAILED_PRECONDITION

    not_revealed = dealer_pb2.RevealSeedResponse.FromString(
        await dealer.reveal(dealer_pb2.RevealSeedRequest(game_id="nosuchgame1").SerializeToString())
    )
    assert not_revealed.refusal.code == "unknown_game"

    for game_id in ("", "short", "UPPERCASE123", "a.b.c.d.e.f", "x" * 33):
        answer = dealer_pb2.CommitSeedResponse.FromString(
            await dealer.commit(dealer_pb2.CommitSeedRequest(game_id=game_id).SerializeToString())
        )
        assert answer.refusal.code == "invalid_game_id", game_id
        assert answer.refusal.category == Category.CATEGORY_INVALID_ARGUMENT

    other_table = dealer_pb2.CommitSeedResponse.FromString(
        await dealer.commit(
            dealer_pb2.CommitSeedRequest(table_id="table0001", game_id=GAME).SerializeToString()
        )
    )
    assert other_table.refusal.code == "invalid_game_id"


async def test_a_deal_needs_the_race_game_kind(dealer: Dealer) -> None:
    await dealer.commit(dealer_pb2.CommitSeedRequest(game_id=GAME).SerializeToString())
    answer = dealer_pb2.DealResponse.FromString(
        await dealer.deal(dealer_pb2.DealRequest(game_id=GAME).SerializeToString())
    )
    assert answer.refusal.code == "unsupported_game_kind"


async def test_concurrent_dealers_commit_to_one_seed(nc: Client) -> None:
    js = nc.jetstream()
    dealers = [Dealer(KvSeedStore(js, await open_seeds(js)), TableFolds(nc)) for _ in range(3)]
    request_bytes = dealer_pb2.CommitSeedRequest(game_id=GAME).SerializeToString()
    answers = await asyncio.gather(*(d.commit(request_bytes) for d in dealers * 5))
    commitments = {
        dealer_pb2.CommitSeedResponse.FromString(a).commitment.commitment for a in answers
    }
    assert len(commitments) == 1
    assert "" not in commitments
    stored = await (await js.key_value(subjects.SEEDS_BUCKET)).get(GAME)
    assert stored.value is not None
    assert hashlib.sha256(stored.value).hexdigest() in commitments


async def test_the_seed_is_revealed_when_any_record_ended_the_game(
    dealer: Dealer, nc: Client
) -> None:
    js = nc.jetstream()
    await dealer.commit(dealer_pb2.CommitSeedRequest(game_id=GAME).SerializeToString())
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED, ENDED))
    refused_later = referee_pb2.TableRecord(
        table_id=GAME,
        first_event_number=3,
        refusal=common_pb2.Refusal(code="game_over"),
    )
    await js.publish(subjects.events(GAME), refused_later.SerializeToString())
    await js.publish(subjects.events(GAME), b"not a record")

    answer = dealer_pb2.RevealSeedResponse.FromString(
        await dealer.reveal(dealer_pb2.RevealSeedRequest(game_id=GAME).SerializeToString())
    )
    assert answer.WhichOneof("result") == "seed", answer


async def test_a_reveal_asked_again_reads_only_the_records_appended_since(nc: Client) -> None:
    js = nc.jetstream()
    log = TableFolds(nc)
    subject = subjects.events(GAME)
    await js.publish(subject, race_record(GAME, 1, STARTED))
    await js.publish(subjects.events("game0000bbbb"), race_record("game0000bbbb", 1, ENDED))
    assert await log.ended(GAME) is None  # not over yet
    assert log.reads == 1
    refused = referee_pb2.TableRecord(table_id=GAME, refusal=common_pb2.Refusal(code="x"))
    for _ in range(2):  # records with no events
        await js.publish(subject, refused.SerializeToString())
    await js.publish(subject, race_record(GAME, 2, ENDED))
    assert log.reads == 1
    game = await log.ended(GAME)
    assert game is not None and game.slug == "race"
    assert log.reads == 4  # the three since, not all four again
    assert await log.ended(GAME) is game and log.reads == 4  # nothing new: nothing read
    fresh = TableFolds(nc)  # folding from the first record agrees
    assert await fresh.ended(GAME) is game and fresh.reads == 4


async def test_reveals_asked_at_once_fold_each_record_once(nc: Client) -> None:
    js = nc.jetstream()
    log = TableFolds(nc)
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    empty = referee_pb2.TableRecord(table_id=GAME).SerializeToString()
    for _ in range(5):
        await js.publish(subjects.events(GAME), empty)
    await js.publish(subjects.events(GAME), race_record(GAME, 2, ENDED))
    games = await asyncio.gather(*(log.ended(GAME) for _ in range(4)))
    assert all(g is not None for g in games)
    assert log.reads == 7


async def test_records_are_read_in_batches_between_other_tables_records(nc: Client) -> None:
    js = nc.jetstream()
    log = TableFolds(nc, batch=4)
    other = "game0000bbbb"
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    empty = referee_pb2.TableRecord(table_id=GAME).SerializeToString()
    for _ in range(8):
        await js.publish(subjects.events(GAME), empty)
        await js.publish(subjects.events(other), race_record(other, 1, ENDED))
    await js.publish(subjects.events(GAME), race_record(GAME, 2, ENDED))
    assert await log.ended(GAME) is not None
    # where the table begins, then its partition's messages 4 + 4 + 2 (none of the other
    # table's: it is on another partition)
    assert subjects.partition_of(other) != subjects.partition_of(GAME)
    assert (log.reads, log.requests) == (10, 4)


def same_partition(table_id: str, count: int) -> list[str]:
    """``count`` table ids on ``table_id``'s partition, other than it."""
    partition = subjects.partition_of(table_id)
    found = (f"game{n:08d}" for n in range(100_000))
    return [t for t in found if subjects.partition_of(t) == partition and t != table_id][:count]


async def eight_games_in_frames(nc: Client) -> list[str]:
    """Eight tables of GAME's partition, each begun on its own subject, then 20 frames of an
    empty record each and a frame that ends all eight: 22 records a table, 29 messages."""
    js = nc.jetstream()
    tables = [GAME, *same_partition(GAME, 7)]
    frames = subjects.frames(subjects.partition_of(GAME))
    for table in tables:
        await js.publish(subjects.events(table), race_record(table, 1, STARTED))
    empty = referee_pb2.TableRecord().SerializeToString()
    for _ in range(20):
        await js.publish(frames, pack([(t, empty, {}) for t in tables]))
    await js.publish(frames, pack([(t, race_record(t, 2, ENDED), {}) for t in tables]))
    return tables


async def test_a_tables_records_in_its_partitions_frames_are_folded_in_stream_order(
    nc: Client,
) -> None:
    """Group commit appends several tables' records in one message on the partition's frame
    subject: the fold takes the table's own subject and its entries in the frames in stream
    order, and another table's end ends nothing here."""
    js = nc.jetstream()
    log = TableFolds(nc, batch=2)
    frames = subjects.frames(subjects.partition_of(GAME))
    [other] = same_partition(GAME, 1)
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    await js.publish(subjects.events(other), race_record(other, 1, STARTED))
    empty = referee_pb2.TableRecord(table_id=GAME).SerializeToString()
    for n in range(3):
        entries: list[tuple[str, bytes, dict[str, str]]] = [
            (other, race_record(other, n + 2, ENDED), {}),
            (GAME, empty, {}),
        ]
        await js.publish(frames, pack(entries))
        await js.publish(subjects.events(GAME), empty)
    assert await log.ended(GAME) is None  # the other table's ends are not this one's
    assert log.reads == 11  # 7 of this table's, 4 of the other's, read in the same messages
    await js.publish(frames, pack([(GAME, race_record(GAME, 2, ENDED), {})]))
    game = await log.ended(GAME)
    assert game is not None and log.reads == 12
    fresh = TableFolds(nc, batch=3)
    assert await fresh.ended(GAME) is game and fresh.reads == 12


async def test_a_partitions_frames_are_read_once_for_all_its_tables(nc: Client) -> None:
    """Under group commit each frame holds records of many tables. The dealer reads each of the
    partition's messages once, whichever tables it is asked about: asked about every table in
    turn, it folds each record once, in a few requests, not each frame once per table."""
    log = TableFolds(nc, batch=16)
    tables = await eight_games_in_frames(nc)
    for table in tables:
        assert await log.ended(table) is not None, table
    assert log.reads == len(tables) * 22  # every record once
    # the first table: where it begins, then 29 messages in two batches; every other table
    # (folded already): one look past the end
    assert log.requests == 3 + (len(tables) - 1)


async def test_a_table_begun_before_the_partitions_reading_is_read_alone(nc: Client) -> None:
    """The partition's reading begins at the first table asked about; a table that began
    before it (one a dealer started since saw begin) is read alone, from its own first record."""
    js = nc.jetstream()
    log = TableFolds(nc)
    [early] = same_partition(GAME, 1)
    frames = subjects.frames(subjects.partition_of(GAME))
    await js.publish(subjects.events(early), race_record(early, 1, STARTED))
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    await js.publish(frames, pack([(GAME, race_record(GAME, 2, ENDED), {})]))
    assert await log.ended(GAME) is not None
    assert log.reads == 2  # the partition is read from GAME's first record: not early's
    await js.publish(frames, pack([(early, race_record(early, 2, ENDED), {})]))
    game = await log.ended(early)
    assert game is not None and game.slug == "race"
    assert log.reads == 4  # early's two, read alone (its end was folded by the partition too)


async def test_folds_beyond_the_kept_number_start_again(nc: Client) -> None:
    js = nc.jetstream()
    log = TableFolds(nc, keep=2)
    games = [f"game0000c00{i}" for i in range(3)]
    for game in games:
        await js.publish(subjects.events(game), race_record(game, 1, STARTED))
        await js.publish(subjects.events(game), race_record(game, 2, ENDED))
        assert await log.ended(game) is not None
    assert log.reads == 6
    assert await log.ended(games[2]) is not None and log.reads == 6  # kept
    assert await log.ended(games[0]) is not None and log.reads == 8  # forgotten: read again


async def test_forgotten_tables_of_a_partition_asked_together_share_a_reading(
    nc: Client,
) -> None:
    """Every live table has a fold, and the oldest are forgotten beyond ``keep``. Their games'
    ends, asked about together, are read in a reading or two of the partition, each record
    once: not the partition's frames once per table (which kept a dealer busy for minutes
    when thousands of forgotten games ended at once, and refused new tables meanwhile)."""
    log = TableFolds(nc, keep=2, batch=16)
    tables = await eight_games_in_frames(nc)
    assert await log.ended(tables[-1]) is not None  # the scan folds all eight, keeps two
    forgotten = tables[:6]
    assert not any(t in log._folds for t in forgotten)
    reads, requests = log.reads, log.requests
    games = await asyncio.gather(*(log.ended(t) for t in forgotten))
    assert all(g is not None for g in games)
    assert log.reads - reads == len(forgotten) * 22  # every record of theirs, once
    # where each begins (6), then at most two readings of the partition's 29 messages (two
    # requests each): the first asked, and all the others together. One by one it was 24.
    assert log.requests - requests <= len(forgotten) + 2 * 2


async def test_a_reveal_asked_again_while_it_is_answered_shares_the_answer(nc: Client) -> None:
    """The referee asks again when a reveal outlasts its wait. Those questions join the answer
    under way: under a burst of game ends each retry did its own work, the dealer's queue grew
    faster than it answered, and every answer came after its asker had given up."""
    js = nc.jetstream()
    log = TableFolds(nc)
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    await js.publish(subjects.events(GAME), race_record(GAME, 2, ENDED))
    games = await asyncio.gather(*(log.ended(GAME) for _ in range(20)))
    assert all(g is not None for g in games)
    # where the table begins, and one reading of its partition: once for all twenty
    assert (log.reads, log.requests) == (2, 2)
    assert await log.ended(GAME) is not None  # asked after: a question of its own
    assert log.requests == 3


class BehindTheLog(TableFolds):
    """Direct Gets answered, every other time, by a server behind the log: half of what the
    stream holds from there, or none of it. nats-server lets each copy of the log (the lobby's
    and the players' mirrors) and each replica answer the log's Direct Gets, in the queue group
    its own answerers share, which no client may join; this stands in for the one that answers.
    The leader's look-ups are nats-server's own."""

    cut = 0  # answers cut short

    async def _read(self, subject: str, start: int, batch: int | None = None) -> list[Any]:
        found = await super()._read(subject, start, batch)
        if self.requests % 2:
            return found
        self.cut += 1
        return found[: len(found) // 2]


async def test_a_copy_behind_the_log_does_not_hide_a_games_end(nc: Client) -> None:
    """The referee asks for a reveal once the game's last record is stored: the dealer finds
    the end whichever server answers its readings, in a fresh reading and in one its background
    reading has been feeding. It refused such reveals (``game_not_over``) until the referee
    asked again."""
    following = BehindTheLog(nc, batch=8)
    await following.begin()
    background = asyncio.create_task(following.keep_up(every_s=0.005))
    try:
        tables = await eight_games_in_frames(nc)
        for n in range(16):
            table = tables[n % len(tables)]
            fresh = BehindTheLog(nc, batch=8)
            assert await fresh.ended(table) is not None, n
            assert fresh.cut > 0 and fresh.checks > 0  # cut short, and finished at the leader
            assert await following.ended(table) is not None, n
    finally:
        background.cancel()
        await asyncio.gather(background, return_exceptions=True)
    assert following.cut > 0
    assert following.reads == len(tables) * 22  # every record folded once all the same


async def test_a_broken_table_stays_unrevealable(nc: Client) -> None:
    js = nc.jetstream()
    log = TableFolds(nc)
    other = common_pb2.EventEnvelope(table_id=GAME, game_id=GAME, event_number=2)
    other.concentration.SetInParent()  # a second game's event at a race table
    await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
    two = referee_pb2.TableRecord(table_id=GAME, first_event_number=2, events=[other])
    await js.publish(subjects.events(GAME), two.SerializeToString())
    assert await log.ended(GAME) is None
    await js.publish(subjects.events(GAME), race_record(GAME, 3, ENDED))
    assert await log.ended(GAME) is None  # an end after it changes nothing
    assert log.reads == 2  # and is not even read: the fold is broken for good


async def test_a_game_ended_at_another_table_reveals_nothing(dealer: Dealer, nc: Client) -> None:
    other = "game0000bbbb"
    await dealer.commit(dealer_pb2.CommitSeedRequest(game_id=GAME).SerializeToString())
    await nc.jetstream().publish(subjects.events(other), race_record(other, 1, ENDED))
    answer = dealer_pb2.RevealSeedResponse.FromString(
        await dealer.reveal(dealer_pb2.RevealSeedRequest(game_id=GAME).SerializeToString())
    )
    assert answer.refusal.code == "game_not_over"


async def test_a_dealer_cut_off_from_nats_answers_unavailable(dealer: Dealer, nc: Client) -> None:
    await nc.close()
    answer = dealer_pb2.CommitSeedResponse.FromString(
        await dealer.commit(dealer_pb2.CommitSeedRequest(game_id=GAME).SerializeToString())
    )
    assert answer.refusal.code == "dealer_unavailable"
    assert answer.refusal.category == Category.CATEGORY_UNAVAILABLE


async def test_a_first_record_not_numbered_as_one_is_read_alone(nc: Client) -> None:
    """The partition's reading takes a table's first record by its record number. A log whose
    first record does not say 1 (one the referee's numbering would quarantine) is still read,
    alone: the dealer judges the game by its rules, not by its numbering."""
    js = nc.jetstream()
    log = TableFolds(nc)
    unnumbered = referee_pb2.TableRecord.FromString(race_record(GAME, 1, STARTED))
    unnumbered.record_number = 0
    await js.publish(subjects.events(GAME), unnumbered.SerializeToString())
    await js.publish(subjects.events(GAME), race_record(GAME, 2, ENDED))
    game = await log.ended(GAME)
    assert game is not None and game.slug == "race"


async def test_a_dealer_that_began_its_scans_folds_a_burst_of_tables_once(nc: Client) -> None:
    """Begun where the log ends (as the dealer does when it starts), a partition's scan covers
    every table begun since, even one begun before the first table asked about: a burst of
    tables whose last ends first is still read once, none of them alone."""
    js = nc.jetstream()
    await js.publish(subjects.events("game0000zzzz"), race_record("game0000zzzz", 1, STARTED))
    log = TableFolds(nc)
    await log.begin()
    tables = [GAME, *same_partition(GAME, 3)]
    frames = subjects.frames(subjects.partition_of(GAME))
    for table in tables:
        await js.publish(subjects.events(table), race_record(table, 1, STARTED))
    await js.publish(frames, pack([(t, race_record(t, 2, ENDED), {}) for t in tables]))
    for table in reversed(tables):  # the last begun is asked about first
        assert await log.ended(table) is not None, table
    assert log.reads == 2 * len(tables)  # every record once, none before the scan began
    assert log.requests == 2 + len(tables) - 1  # where the last begins, one reading, a look each


async def test_reveals_asked_together_in_a_partition_share_one_reading(nc: Client) -> None:
    """When a partition's tables end together (a burst of game ends), the reveals asked at
    once make one reading of the partition for all of them, not one each (which, one at a
    time behind the partition's lock, once made the referee's reveals time out by the
    hundred); each still sees every record stored before it was asked."""
    js = nc.jetstream()
    log = TableFolds(nc, batch=64)
    await log.begin()
    tables = [GAME, *same_partition(GAME, 39)]
    frames = subjects.frames(subjects.partition_of(GAME))
    for table in tables:
        await js.publish(subjects.events(table), race_record(table, 1, STARTED))
    assert await log.ended(GAME) is None  # the partition read once: every table folded
    before = log.requests
    await js.publish(frames, pack([(t, race_record(t, 2, ENDED), {}) for t in tables]))
    games = await asyncio.gather(*(log.ended(t) for t in tables))
    assert all(g is not None for g in games)
    # the first question's reading, and one more for those asked while it read: not forty
    assert log.requests - before <= 2
    assert log.reads == 2 * len(tables)
    # a question asked after that reading still reads what was stored after it
    [late] = same_partition(GAME, 40)[-1:]
    await js.publish(subjects.events(late), race_record(late, 1, STARTED))
    await js.publish(frames, pack([(late, race_record(late, 2, ENDED), {})]))
    assert await log.ended(late) is not None


async def test_a_dealer_keeping_up_has_folded_the_records_before_the_reveals(nc: Client) -> None:
    """Kept up (as the dealer runs), a partition is read as its records are stored, not all at
    the first reveal after a busy spell: the reveals then find nothing left to fold."""
    js = nc.jetstream()
    log = TableFolds(nc)
    await log.begin()
    tables = [GAME, *same_partition(GAME, 3)]
    frames = subjects.frames(subjects.partition_of(GAME))
    keeping_up = asyncio.create_task(log.keep_up(0.05))
    try:
        for table in tables:
            await js.publish(subjects.events(table), race_record(table, 1, STARTED))
        await js.publish(frames, pack([(t, race_record(t, 2, ENDED), {}) for t in tables]))
        for _ in range(200):
            if log.reads == 2 * len(tables):
                break
            await asyncio.sleep(0.02)
        assert log.reads == 2 * len(tables)  # read with no reveal asked
    finally:
        keeping_up.cancel()
        await asyncio.wait({keeping_up}, timeout=5)
        assert keeping_up.cancelled()  # it stops when told, whatever it was doing
    for table in tables:
        assert await log.ended(table) is not None, table
    assert log.reads == 2 * len(tables)  # nothing left to fold


async def test_a_quiet_partition_is_read_less_often_until_it_has_something_new(
    nc: Client,
) -> None:
    """Kept up with nothing stored, the dealer backs off to one reading per partition every
    eight rounds instead of one every round; a record stored later is still read."""
    log = TableFolds(nc)
    await log.begin()
    rounds = 40
    keeping_up = asyncio.create_task(log.keep_up(0.02))
    try:
        await asyncio.sleep(rounds * 0.02)
        every_round = subjects.PARTITIONS * rounds
        assert 0 < log.requests <= every_round // 3
        js = nc.jetstream()
        await js.publish(subjects.events(GAME), race_record(GAME, 1, STARTED))
        for _ in range(300):
            if log.reads == 1:
                break
            await asyncio.sleep(0.01)
        assert log.reads == 1  # read without a reveal, after the quiet spell
    finally:
        keeping_up.cancel()
        await asyncio.wait({keeping_up}, timeout=5)
        assert keeping_up.cancelled()  # it stops when told, whatever it was doing
