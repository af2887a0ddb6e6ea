"""Players through the real stack: two people sign in with keys of their own, play a
Concentration game to its end, and the players service rates them, counts their statistics and
lists them on the leaderboard, which the lobby serves; a third person sees only the public
profile. The figures are worked out from what the players themselves saw."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from match.v1 import common_pb2, lobby_pb2, players_pb2, players_pb2_grpc
from match_players.identity import player_id, sign_in_message
from tests.e2e.players_concentration import CPlayer, Settings, check_no_leaks
from tests.e2e.players_match_cards import MCPlayer

SMALL = Settings(
    pictures=Settings.PICTURES_PLAYING_CARDS, cards=24, matching=Settings.MATCHING_RANK
)
CONCENTRATION = common_pb2.GAME_KIND_CONCENTRATION
MATCH_CARDS = common_pb2.GAME_KIND_MATCH_CARDS


async def sign_in(players: players_pb2_grpc.PlayerServiceStub) -> tuple[str, str]:
    """A new key, signed in: its player id and session token."""
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    challenge = await players.GetChallenge(players_pb2.GetChallengeRequest(public_key=public))
    signed = await players.SignIn(
        players_pb2.SignInRequest(
            public_key=public,
            challenge=challenge.challenge,
            signature=key.sign(sign_in_message(challenge.challenge)),
        )
    )
    assert signed.player_id == player_id(public) == challenge.player_id
    return signed.player_id, signed.session_token


def bearer(session: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {session}"),)


async def board_with(
    players: players_pb2_grpc.PlayerServiceStub, count: int, timeout: float = 60.0
) -> players_pb2.GetLeaderboardResponse:
    """The Concentration rating board once it lists ``count`` players (the players service
    counts a game a moment after its seed is revealed)."""
    deadline = time.monotonic() + timeout
    while True:
        board = await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=CONCENTRATION)
        )
        if board.total >= count:
            return board
        assert time.monotonic() < deadline, f"the board lists {board.total} of {count}"
        await asyncio.sleep(0.3)


async def test_two_keyed_players_are_rated_counted_and_listed_after_their_game(
    stack: object, channel: grpc.aio.Channel
) -> None:
    players = players_pb2_grpc.PlayerServiceStub(channel)
    ann_id, ann_session = await sign_in(players)
    bob_id, bob_session = await sign_in(players)
    ann = CPlayer("Ann", channel, session=ann_session)
    bob = CPlayer("Bob", channel, session=bob_session)
    await ann.create(seats=2, settings=SMALL)
    assert ann.player_id == ann_id  # seated under the key's id
    ann.watch()
    await bob.join(ann.table_id)
    assert bob.player_id == bob_id
    bob.watch()
    await ann.wait_for("game_started")
    await asyncio.gather(ann.play_to_the_end(), bob.play_to_the_end())
    ended = await ann.wait_for("game_ended")
    pairs = {s.player: s.pairs for s in ended.standings}
    winners = set(ended.winners) if not ended.draw else set()
    check_no_leaks(ann)
    check_no_leaks(bob)

    board = await board_with(players, 2)
    assert board.unit == "rating" and not board.lower_is_better
    rows = {r.player_id: r for r in board.rows}
    assert set(rows) == {ann_id, bob_id}
    assert {rows[ann_id].display_name, rows[bob_id].display_name} == {"Ann", "Bob"}
    assert all(r.provisional and r.games == 1 for r in rows.values())
    if ended.draw:
        assert rows[ann_id].value == pytest.approx(rows[bob_id].value)
        assert rows[ann_id].rank == rows[bob_id].rank == 1
    else:
        (winner,) = winners
        loser = bob_id if winner == ann_id else ann_id
        assert rows[winner].value > rows[loser].value
        assert (rows[winner].rank, rows[loser].rank) == (1, 2)

    mine = await players.GetMyStatistics(
        players_pb2.GetMyStatisticsRequest(), metadata=bearer(ann_session)
    )
    (stats,) = mine.games
    assert stats.game_kind == CONCENTRATION
    assert (stats.games, stats.wins, stats.draws) == (1, int(ann_id in winners), int(ended.draw))
    figures = {f.name: (f.value, f.keep) for f in stats.figures}
    assert figures["pairs"] == (pairs[ann_id], "sum")

    profile = (await players.GetMyProfile(players_pb2.GetMyProfileRequest(),
                                          metadata=bearer(ann_session))).profile  # fmt: skip
    assert profile.player_id == ann_id and profile.display_name == "Ann"
    assert [r.game_kind for r in profile.ratings] == [CONCENTRATION]
    assert profile.ratings[0].rating == pytest.approx(rows[ann_id].value)

    # Anybody may read Bob's public profile: his name and ratings, nothing else.
    public = (await players.GetProfile(players_pb2.GetProfileRequest(player_id=bob_id))).profile
    assert public.display_name == "Bob" and len(public.ratings) == 1
    assert {f.name for f, _ in public.ListFields()} == {
        "player_id", "display_name", "ratings", "first_game_at_ms"}  # fmt: skip

    streak = await players.GetMyStreak(
        players_pb2.GetMyStreakRequest(), metadata=bearer(ann_session)
    )
    assert (streak.current, streak.best, streak.solved) == (0, 0, 0)

    # A page past the last is refused, saying how many there are; nothing else changes.
    with pytest.raises(grpc.aio.AioRpcError) as past:
        await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=CONCENTRATION, page=2)
        )
    assert past.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert "1 page" in (past.value.details() or "")
    # The "my" calls want the session, not a seat's token.
    with pytest.raises(grpc.aio.AioRpcError) as seat_token:
        await players.GetMyStatistics(
            players_pb2.GetMyStatisticsRequest(), metadata=bearer(ann.token)
        )
    assert seat_token.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # The game is counted once, however often it is asked about.
    again = await board_with(players, 2)
    assert [(r.player_id, r.value, r.games) for r in again.rows] == [
        (r.player_id, r.value, r.games) for r in board.rows]  # fmt: skip


async def test_every_board_a_leaderboard_lists_opens_by_its_name(
    stack: object, channel: grpc.aio.Channel
) -> None:
    """A ranked Match Cards win puts the player on the level's board and on the board of the
    game's code (77 characters, upper case as the game shows it): every board the listing names
    opens as named, and in the case the game code is shown in (issue 31, item 9)."""
    players = players_pb2_grpc.PlayerServiceStub(channel)
    ann_id, session = await sign_in(players)
    ann = MCPlayer("Ann", channel)
    request = lobby_pb2.CreateTableRequest(
        game_kind=MATCH_CARDS, seats=1, visibility=common_pb2.VISIBILITY_OPEN, display_name="Ann"
    )
    ann._seat(await ann.lobby.CreateTable(request, metadata=bearer(session)))
    assert ann.player_id == ann_id
    ann.watch()
    await ann.play_to_the_end()
    ended = await ann.wait_for("game_ended")
    assert ended.standings[0].won and not ended.replay
    deadline = time.monotonic() + 60
    while True:
        main = await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=MATCH_CARDS)
        )
        if len(main.boards) >= 2:
            break
        assert time.monotonic() < deadline, f"the boards are {list(main.boards)}"
        await asyncio.sleep(0.3)
    code_board = f"code-{ended.code}".lower()
    assert code_board in main.boards and len(code_board) == 77
    for name in [*main.boards, f"code-{ended.code}"]:
        page = await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=MATCH_CARDS, board=name)
        )
        assert [r.player_id for r in page.rows] == [ann_id], name
        assert page.unit == "ms" and page.lower_is_better, name
    # A name that is no board name is refused, saying what one is; nothing else changes.
    with pytest.raises(grpc.aio.AioRpcError) as bad:
        await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=MATCH_CARDS, board="code " + ended.code)
        )
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "letters, digits and dashes" in (bad.value.details() or "")
    # A well-formed name that is none of the game's boards is refused too, naming the boards
    # there are: a misspelt board never reads as an empty one.
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=MATCH_CARDS, board="level-nope")
        )
    assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    said = unknown.value.details() or ""
    assert said.startswith("Match Cards has no board 'level-nope': its boards are the main board")
    assert all(name in said for name in main.boards), said
