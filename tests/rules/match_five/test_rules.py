"""MATCH 5's rules, one test per rule of the seed and of docs/rules-match-5.md: the start, the
writing and its sand timer, the links' limits and reuse, the reading, the votes and their ties,
"Match!", the scoring, the rounds, the end and its tie-break. Every refusal changes nothing
(:meth:`Table.refused` checks it)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match_rules.errors import Category, Code, RuleError
from match_rules.match_five import commands as cmd
from match_rules.match_five import events as ev
from match_rules.match_five.content import TILES, category
from match_rules.match_five.deal import DEAL_VERSION, categories, deal
from match_rules.match_five.decide import (
    decide,
    decide_steps,
    groups,
    is_terminal,
    next_deadline,
    rank,
)
from match_rules.match_five.errors import MatchFiveCode
from match_rules.match_five.settings import Settings
from match_rules.match_five.settings import check as check_settings
from match_rules.match_five.state import Phase, evolve, initial_state
from tests.rules.match_five.helpers import (
    ANN,
    BOB,
    CY,
    DAN,
    SEED,
    T0,
    VOTE_MS,
    WRITING_MS,
    Table,
    kinds,
)

# --- the start ---------------------------------------------------------------------------------


def test_the_game_starts_with_one_die_of_each_colour_and_round_1s_roll_on_side_a():
    table = Table()
    dealt = deal(SEED)
    started, rolled = table.events
    assert started == ev.GameStarted(T0, (ANN, BOB, CY), Settings(), DEAL_VERSION, dealt.dice)
    assert rolled == ev.RoundStarted(T0, 1, dealt.faces[0], dealt.categories(1), T0 + WRITING_MS)
    colour = "red"
    assert rolled.categories[0] == TILES[colour][dealt.dice[0] - 1][0][dealt.faces[0][0] - 1]
    assert table.state.phase is Phase.WRITING and next_deadline(table.state) == T0 + WRITING_MS


@pytest.mark.parametrize("count", [2, 8])
def test_a_table_seats_2_to_8_players(count):
    players = tuple(f"p{n}" for n in range(count))
    assert Table(players).state.players == players


@pytest.mark.parametrize(
    "players", [("solo",), tuple(f"p{n}" for n in range(9)), (ANN, ANN), (ANN, "")]
)
def test_a_table_of_1_or_9_players_or_without_distinct_ids_is_refused(players):
    with pytest.raises(RuleError) as caught:
        decide(initial_state(deal(SEED)), cmd.StartGame(T0, players, Settings(), DEAL_VERSION))
    assert caught.value.code is Code.INVALID_SETUP


@pytest.mark.parametrize(
    ("settings", "ok"),
    [
        (Settings(writing_seconds=30), True),
        (Settings(writing_seconds=600), True),
        (Settings(writing_seconds=29), False),
        (Settings(writing_seconds=601), False),
        (Settings(vote_seconds=10), True),
        (Settings(vote_seconds=300), True),
        (Settings(vote_seconds=9), False),
        (Settings(vote_seconds=301), False),
    ],
)
def test_the_timers_are_set_within_their_bounds(settings, ok):
    start = cmd.StartGame(T0, (ANN, BOB), settings, DEAL_VERSION)
    if ok:
        assert decide(initial_state(deal(SEED)), start)
        return
    with pytest.raises(RuleError) as caught:
        decide(initial_state(deal(SEED)), start)
    assert caught.value.code is Code.INVALID_SETUP


def test_a_game_starts_once():
    table = Table()
    again = cmd.StartGame(T0, (ANN, BOB), Settings(), DEAL_VERSION)
    assert table.refused(again) is Code.GAME_ALREADY_STARTED


def test_the_referee_starts_a_game_only_with_its_deal():
    with pytest.raises(ValueError, match="hold the deal"):
        decide(initial_state(), cmd.StartGame(T0, (ANN, BOB), Settings(), DEAL_VERSION))


def test_round_2_is_rolled_only_by_the_referee_who_holds_the_deal():
    table = Table()
    projection = replace(table.state, deal=None)  # what the events alone give
    with pytest.raises(ValueError, match="hold the deal"):
        decide(projection, cmd.Tick(T0 + 10**9))


def test_nothing_is_played_before_the_start_by_a_stranger_or_after_the_end():
    state = initial_state(deal(SEED))
    with pytest.raises(RuleError) as caught:
        decide(state, cmd.WriteLink(T0, ANN, 1, "Shark"))
    assert caught.value.code is Code.GAME_NOT_STARTED
    table = Table()
    assert table.refused(cmd.WriteLink(T0, "eve", 1, "Shark")) is Code.NOT_SEATED
    assert table.refused(cmd.Done(T0, "eve")) is Code.NOT_SEATED
    table.tick(T0 + 10**9)
    assert is_terminal(table.state) and next_deadline(table.state) is None
    for command in (
        cmd.WriteLink(table.now, ANN, 1, "late"),
        cmd.Done(table.now, ANN),
        cmd.Vote(table.now, ANN, 1, True),
        cmd.CallMatch(table.now, ANN, 1),
        cmd.EraseLink(table.now, ANN, 1),
    ):
        assert table.refused(command) is Code.GAME_OVER
    assert table.tick(table.now + 1) == []


def test_time_never_runs_backwards():
    table = Table()
    table.write(ANN, 1, "Shark", T0 + 5_000)
    assert table.tick(T0 + 1) == []
    assert table.refused(cmd.WriteLink(T0 + 1, ANN, 2, "Whale")) is Code.STALE_TIME
    assert table.write(ANN, 2, "Whale", T0 + 5_000)  # the same instant is fine


# --- the writing -------------------------------------------------------------------------------


def test_a_link_is_kept_exactly_as_written_and_only_its_author_is_told():
    table = Table()
    (written,) = table.write(ANN, 3, "  Little Red Riding-Hood! ", T0 + 10)
    assert written == ev.LinkWritten(T0 + 10, ANN, 1, 3, "  Little Red Riding-Hood! ")
    assert table.state.links(ANN) == {3: "  Little Red Riding-Hood! "}


def test_writing_again_replaces_the_link_and_the_same_text_again_is_fine():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(ANN, 1, "Whale")
    assert table.state.links(ANN) == {1: "Whale"}
    assert table.write(ANN, 1, "whale!")  # its own combination: not a reuse
    assert table.state.links(ANN) == {1: "whale!"}


@pytest.mark.parametrize(("combination", "ok"), [(0, False), (1, True), (10, True), (11, False)])
def test_the_combinations_are_numbered_1_to_10(combination, ok):
    table = Table()
    command = cmd.WriteLink(T0, ANN, combination, "Shark")
    if ok:
        assert table.run(command)
    else:
        assert table.refused(command) is MatchFiveCode.COMBINATION_OUT_OF_RANGE
        assert (
            table.refused(cmd.EraseLink(T0, ANN, combination))
            is MatchFiveCode.COMBINATION_OUT_OF_RANGE
        )


def test_a_link_of_60_characters_is_fine_and_of_61_refused():
    table = Table()
    assert table.write(ANN, 1, "a" * 60)
    assert table.refused(cmd.WriteLink(T0, ANN, 2, "b" * 61)) is MatchFiveCode.LINK_TOO_LONG


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", MatchFiveCode.LINK_EMPTY),
        ("  ?! ", MatchFiveCode.LINK_EMPTY),
        ("new\nline", MatchFiveCode.LINK_INVALID_CHARACTERS),
        ("in\u200bvisible", MatchFiveCode.LINK_INVALID_CHARACTERS),
    ],
)
def test_an_empty_link_or_one_with_a_control_character_is_refused(text, code):
    assert Table().refused(cmd.WriteLink(T0, ANN, 1, text)) is code


@pytest.mark.parametrize("again", ["Shark", "SHARK", "shárk", " shark!! ", "Shark."])
def test_a_link_used_for_another_combination_this_round_is_refused_quoting_it(again):
    table = Table()
    table.write(ANN, 1, "Shark")
    with pytest.raises(RuleError) as caught:
        table.run(cmd.WriteLink(T0, ANN, 2, again))
    assert caught.value.code is MatchFiveCode.LINK_REUSED
    assert '"Shark" for combination 1 (red and yellow) this round' in caught.value.message
    assert table.write(BOB, 2, again)  # another player's sheet


def test_a_link_of_round_1_cannot_be_used_again_in_round_2_even_for_the_same_combination():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.tick(T0 + WRITING_MS + VOTE_MS)  # round 1 read out by the timers
    assert table.state.round == 2 and table.state.phase is Phase.WRITING
    with pytest.raises(RuleError) as caught:
        table.run(cmd.WriteLink(table.now, ANN, 1, "shark"))
    assert caught.value.code is MatchFiveCode.LINK_REUSED and "in round 1" in caught.value.message
    assert table.write(ANN, 1, "Whale")


def test_an_erased_link_is_free_again():
    table = Table()
    table.write(ANN, 1, "Shark")
    (erased,) = table.erase(ANN, 1, T0 + 5)
    assert erased == ev.LinkErased(T0 + 5, ANN, 1, 1)
    assert table.state.links(ANN) == {}
    assert table.write(ANN, 2, "Shark")


def test_erasing_where_there_is_no_link_is_refused():
    table = Table()
    table.write(ANN, 1, "Shark")
    assert table.refused(cmd.EraseLink(T0, ANN, 2)) is MatchFiveCode.NO_LINK
    assert table.refused(cmd.EraseLink(T0, BOB, 1)) is MatchFiveCode.NO_LINK


def test_done_writing_is_told_and_ends_the_players_writing():
    table = Table()
    table.write(ANN, 1, "Shark")
    assert table.done(ANN, T0 + 7) == [ev.PlayerDone(T0 + 7, ANN, 1, 0)]
    for command in (
        cmd.Done(T0 + 8, ANN),
        cmd.WriteLink(T0 + 8, ANN, 2, "Whale"),
        cmd.EraseLink(T0 + 8, ANN, 1),
    ):
        assert table.refused(command) is MatchFiveCode.ALREADY_DONE
    assert table.write(BOB, 2, "Whale")


def test_the_writing_ends_as_soon_as_everybody_is_done():
    table = Table()
    table.write(BOB, 1, "Shark")
    table.done(ANN, T0 + 1)
    table.done(BOB, T0 + 2)
    events = table.done(CY, T0 + 3)
    assert kinds(events) == ["PlayerDone", "CombinationOpened"]
    assert events[1] == ev.CombinationOpened(
        T0 + 3, 1, 1, (ev.ReadLink(1, BOB, "Shark", 0),), T0 + 3 + VOTE_MS
    )
    assert table.state.phase is Phase.READING and next_deadline(table.state) == T0 + 3 + VOTE_MS


def test_a_link_is_written_until_1_ms_before_the_sand_timer_and_not_at_it():
    table = Table()
    end = T0 + WRITING_MS
    assert table.tick(end - 1) == []
    assert table.write(ANN, 1, "Shark", end - 1)
    assert table.refused(cmd.WriteLink(end, ANN, 2, "Whale")) is MatchFiveCode.NOT_WRITING
    assert table.refused(cmd.EraseLink(end, ANN, 1)) is MatchFiveCode.NOT_WRITING
    events = table.tick(end)
    assert events[0] == ev.CombinationOpened(
        end, 1, 1, (ev.ReadLink(1, ANN, "Shark", 0),), end + VOTE_MS
    )


def test_the_sand_timer_counts_the_tables_setting():
    table = Table(settings=Settings(writing_seconds=30, vote_seconds=10))
    assert table.state.writing_ends_at == T0 + 30_000
    table.write(ANN, 1, "Shark")
    (opened,) = table.tick(T0 + 30_000)
    assert isinstance(opened, ev.CombinationOpened) and opened.votes_end_at == T0 + 40_000


def test_no_vote_and_no_match_while_writing():
    table = Table()
    assert table.refused(cmd.Vote(T0, ANN, 1, True)) is MatchFiveCode.NOT_READING
    assert table.refused(cmd.CallMatch(T0, ANN, 1)) is MatchFiveCode.NOT_READING


# --- the reading -------------------------------------------------------------------------------


def test_the_reading_shows_every_link_of_the_combination_in_seat_order_with_the_servers_groups():
    players = (ANN, BOB, CY, DAN, "eve")
    table = Table(players)
    for player, text in zip(players, ["Shark", "Whale", "shark!", "WHALE", "Eel"], strict=True):
        table.write(player, 1, text)
    table.everybody_done()
    assert table.opened().links == (
        ev.ReadLink(1, ANN, "Shark", 1),
        ev.ReadLink(2, BOB, "Whale", 2),
        ev.ReadLink(3, CY, "shark!", 1),
        ev.ReadLink(4, DAN, "WHALE", 2),
        ev.ReadLink(5, "eve", "Eel", 0),
    )


def test_groups_number_the_equal_links_in_order_of_first_appearance():
    assert groups(["a", "b", "a", "c", "b", "b"]) == [1, 2, 1, 0, 2, 2]
    assert groups(["a", "b"]) == [0, 0]


def test_ballots_are_numbered_through_the_whole_game():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(BOB, 1, "Whale")
    table.write(CY, 3, "Eel")
    table.everybody_done()
    table.call(ANN, 2)  # ballot 3
    table.everybody_done()
    assert table.opened().combination == 3 and table.opened().links[0].ballot == 4
    table.everybody_done()  # the rest of round 1 is empty
    assert table.state.round == 2
    table.write(ANN, 1, "Octopus")
    table.everybody_done()
    assert table.opened().links == (ev.ReadLink(5, ANN, "Octopus", 0),)


def test_a_combination_without_a_link_opens_and_closes_at_once_and_the_next_opens():
    table = Table()
    table.write(ANN, 3, "Shark")
    events = table.everybody_done(T0 + 1)[3:]
    assert events == [
        ev.CombinationOpened(T0 + 1, 1, 1, (), T0 + 1),
        ev.CombinationClosed(T0 + 1, 1, 1, (), ()),
        ev.CombinationOpened(T0 + 1, 1, 2, (), T0 + 1),
        ev.CombinationClosed(T0 + 1, 1, 2, (), ()),
        ev.CombinationOpened(T0 + 1, 1, 3, (ev.ReadLink(1, ANN, "Shark", 0),), T0 + 1 + VOTE_MS),
    ]


def reading(players: tuple[str, ...] = (ANN, BOB, CY), **links: str) -> Table:
    """A table reading combination 1, where each named player wrote their link."""
    table = Table(players)
    for player, text in links.items():
        table.write(player, 1, text)
    table.everybody_done()
    return table


def test_a_vote_is_public_and_final():
    table = reading(ann="Shark", bob="Whale")
    assert table.vote(CY, 1, True, T0 + 9) == [ev.VoteCast(T0 + 9, CY, 1, True)]
    assert table.refused(cmd.Vote(T0 + 9, CY, 1, False)) is MatchFiveCode.ALREADY_VOTED
    assert table.vote(CY, 2, False)


def test_the_author_may_vote_on_their_own_link():
    table = reading(ann="Shark")
    assert table.vote(ANN, 1, True)


def test_a_vote_on_a_ballot_not_open_is_refused():
    table = reading(ann="Shark", bob="Whale")
    with pytest.raises(RuleError) as caught:
        table.vote(CY, 3)
    assert (
        caught.value.code is MatchFiveCode.BALLOT_NOT_OPEN
        and "is not read yet" in caught.value.message
    )
    assert "ballots are 1 to 2" in caught.value.message


def test_ballot_0_never_exists_so_it_is_a_wrong_argument_not_a_closed_ballot():
    """Issue 31, item 11: ballot 0 was answered "ballot 0 is closed"."""
    table = reading(ann="Shark", bob="Whale")
    for command in (cmd.Vote(table.now, CY, 0, True), cmd.CallMatch(table.now, ANN, 0)):
        with pytest.raises(RuleError) as caught:
            table.run(command)
        assert caught.value.code is MatchFiveCode.BALLOT_OUT_OF_RANGE
        assert caught.value.code.category is Category.INVALID_ARGUMENT
        assert "there is no ballot 0: ballots are numbered from 1" in caught.value.message
        assert "closed" not in caught.value.message


def test_a_vote_on_a_closed_combinations_ballot_is_refused():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(ANN, 2, "Whale")
    table.everybody_done()
    table.everybody_done()
    assert table.opened().combination == 2
    assert table.refused(cmd.Vote(table.now, BOB, 1, True)) is MatchFiveCode.BALLOT_NOT_OPEN


def test_a_vote_is_cast_until_1_ms_before_the_timer_and_not_at_it():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(BOB, 1, "Whale")
    table.write(CY, 2, "Eel")
    table.everybody_done()
    end = table.opened().votes_end_at
    assert table.tick(end - 1) == []
    assert table.vote(CY, 1, False, end - 1)
    assert table.refused(cmd.Vote(end, CY, 2, True)) is MatchFiveCode.BALLOT_NOT_OPEN
    events = table.tick(end)
    assert events[0] == ev.CombinationClosed(
        end,
        1,
        1,
        (ev.BallotResult(1, False, 0, 1, False), ev.BallotResult(2, True, 0, 0, False)),
        (ev.LinkScore(1, ANN, False, 0), ev.LinkScore(2, BOB, False, 1)),
    )


def test_done_with_a_combination_is_told_and_once_everybody_is_it_closes():
    table = reading(ann="Shark")
    at = table.now + 3
    assert table.done(ANN, at) == [ev.PlayerDone(at, ANN, 1, 1)]
    assert table.refused(cmd.Done(at, ANN)) is MatchFiveCode.ALREADY_DONE
    assert table.vote(ANN, 1, True, at)  # done is not a vow of silence
    table.done(BOB, at)
    events = table.done(CY, at)
    assert kinds(events[:3]) == ["PlayerDone", "CombinationClosed", "CombinationOpened"]
    assert events[1].at == at


def test_no_link_is_written_during_the_reading():
    table = reading(ann="Shark")
    assert table.refused(cmd.WriteLink(table.now, ANN, 2, "Whale")) is MatchFiveCode.NOT_WRITING


# --- votes: accepted, refused, ties -----------------------------------------------------------


def voted(votes: dict[str, bool], players: tuple[str, ...] = (ANN, BOB, CY, DAN)) -> Table:
    """Ann's link read and voted on by ``votes``, then closed."""
    table = reading(players, ann="Shark")
    for player, accept in votes.items():
        table.vote(player, 1, accept)
    table.tick(table.opened().votes_end_at)
    return table


@pytest.mark.parametrize(
    ("votes", "result"),
    [
        ({BOB: True, CY: True, DAN: False}, (True, 2, 1, False)),  # a majority accepts
        ({BOB: False, CY: False, DAN: True}, (False, 1, 2, False)),  # a majority contests
        ({BOB: True}, (True, 1, 0, False)),  # the others abstain: they count for nothing
        ({BOB: False}, (False, 0, 1, False)),
        ({ANN: True}, (True, 1, 0, False)),  # the author's own vote counts when no tie
        ({BOB: True, CY: False}, (True, 1, 1, False)),  # a tie without the author: accepted
        ({}, (True, 0, 0, False)),  # nobody voted: the benefit of the doubt
        ({ANN: True, BOB: False}, (False, 0, 1, True)),  # a tie: the author's vote left out
        ({ANN: False, BOB: True}, (True, 1, 0, True)),
        ({ANN: True, BOB: True, CY: False, DAN: False}, (False, 1, 2, True)),
    ],
)
def test_a_link_is_accepted_or_refused_by_the_majority_and_a_tie_leaves_out_its_author(
    votes, result
):
    table = voted(votes)
    assert table.result(1) == ev.BallotResult(1, *result)
    assert table.score(1).points == int(result[0])


# --- "Match!" ------------------------------------------------------------------------------------


def test_match_is_called_on_another_players_link_and_the_table_votes_on_it():
    table = reading(ann="Actor", bob="Aktor")
    at = table.now + 1
    assert table.call(ANN, 2, at) == [ev.MatchCalled(at, ANN, 3, 1, 2)]
    assert table.refused(cmd.Vote(at, ANN, 3, True)) is MatchFiveCode.OWN_CALL
    assert table.vote(BOB, 3, True)
    assert table.vote(CY, 3, True)


def test_match_is_not_called_on_your_own_link_without_a_link_or_on_a_ballot_not_open():
    table = reading(ann="Actor", bob="Aktor")
    assert table.refused(cmd.CallMatch(table.now, ANN, 1)) is MatchFiveCode.OWN_LINK
    assert table.refused(cmd.CallMatch(table.now, CY, 1)) is MatchFiveCode.NO_LINK
    assert table.refused(cmd.CallMatch(table.now, ANN, 7)) is MatchFiveCode.BALLOT_NOT_OPEN
    table.call(ANN, 2)
    with pytest.raises(RuleError) as caught:
        table.call(BOB, 3)  # a call is not a link
    assert (
        caught.value.code is MatchFiveCode.BALLOT_NOT_OPEN and "not a link" in caught.value.message
    )


def test_match_is_not_called_twice_nor_on_links_the_server_paired():
    table = reading(ann="Actor", bob="Aktor", cy="actor!")
    assert table.refused(cmd.CallMatch(table.now, ANN, 3)) is MatchFiveCode.ALREADY_MATCHING
    table.call(ANN, 2)
    assert table.refused(cmd.CallMatch(table.now, ANN, 2)) is MatchFiveCode.ALREADY_MATCHING
    assert table.refused(cmd.CallMatch(table.now, BOB, 1)) is MatchFiveCode.ALREADY_MATCHING
    assert table.call(BOB, 3)  # Bob and Cy: not called yet


def test_a_match_call_takes_back_every_done_of_the_combination():
    table = reading(ann="Actor", bob="Aktor")
    table.done(BOB)
    table.done(CY)
    table.call(ANN, 2)
    assert table.state.done == frozenset()
    assert table.done(BOB)
    assert table.state.combination == 1


@pytest.mark.parametrize(
    ("votes", "agreed", "points"),
    [
        ({BOB: True, CY: True}, True, 2),
        ({BOB: True}, True, 2),  # Cy abstains
        ({BOB: True, CY: False}, False, 1),  # a tie: not agreed
        ({}, False, 1),  # nobody agreed
        ({BOB: False, CY: False}, False, 1),
    ],
)
def test_a_match_call_is_agreed_when_more_of_the_others_agree_than_not(votes, agreed, points):
    table = reading(ann="Actor", bob="Aktor")
    table.call(ANN, 2)
    for player, accept in votes.items():
        table.vote(player, 3, accept)
    table.tick(table.opened().votes_end_at)
    result = table.result(3)
    assert (result.accepted, result.author_ignored) == (agreed, False)
    assert (table.score(1).points, table.score(2).points) == (points, points)


# --- matching links and points -----------------------------------------------------------------


def closed(links: dict[str, str], contested: tuple[int, ...] = (), calls=(), agreed=True):
    """Combination 1 with ``links``, the ballots ``contested`` refused by everybody but their
    author, the "Match!" ``calls`` (caller, ballot) voted by every other player, closed."""
    players = (ANN, BOB, CY, DAN)
    table = reading(players, **links)
    for caller, ballot in calls:
        (called,) = table.call(caller, ballot)
        for p in players:
            if p != caller:
                table.vote(p, called.ballot, agreed)
    for link in table.opened().links:
        if link.ballot in contested:
            for p in players:
                if p != link.player:
                    table.vote(p, link.ballot, False)
    table.tick(table.opened().votes_end_at)
    return {s.ballot: (s.matching, s.points) for c in table.state.closed for s in c.scores}


def test_equal_accepted_links_are_matching_and_score_2_a_lone_one_1():
    assert closed({ANN: "Actor", BOB: "actor", CY: "Shark"}) == {
        1: (True, 2),
        2: (True, 2),
        3: (False, 1),
    }


def test_a_refused_link_scores_0_and_makes_nobody_matching():
    assert closed({ANN: "Actor", BOB: "actor"}, contested=(2,)) == {1: (False, 1), 2: (False, 0)}


def test_an_agreed_match_makes_both_links_matching():
    assert closed({ANN: "Actor", BOB: "Aktor"}, calls=[(ANN, 2)]) == {1: (True, 2), 2: (True, 2)}
    assert closed({ANN: "Actor", BOB: "Aktor"}, calls=[(ANN, 2)], agreed=False) == {
        1: (False, 1),
        2: (False, 1),
    }


def test_links_joined_through_a_refused_one_still_match_each_other():
    links = {ANN: "Actor", BOB: "actor", CY: "Aktor"}
    scores = closed(links, contested=(2,), calls=[(CY, 2)])
    assert scores == {1: (True, 2), 2: (False, 0), 3: (True, 2)}


def test_three_equal_links_match_together():
    scores = closed({ANN: "Sun", BOB: "sun", CY: "SUN", DAN: "Moon"})
    assert scores == {1: (True, 2), 2: (True, 2), 3: (True, 2), 4: (False, 1)}


# --- the rounds and the end ----------------------------------------------------------------------


def test_after_combination_10_the_round_is_scored_and_round_2_rolls_on_side_b():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(BOB, 1, "shark")
    table.write(CY, 10, "Eel")
    table.everybody_done()
    table.everybody_done()
    assert table.opened().combination == 10
    at = table.now + 100
    table.vote(ANN, 3, False, at)
    events = table.everybody_done(at)[4:]
    dealt = deal(SEED)
    assert events == [
        ev.RoundScored(
            at,
            1,
            (
                ev.PlayerScore(ANN, 2, 1, 2),
                ev.PlayerScore(BOB, 2, 1, 2),
                ev.PlayerScore(CY, 0, 0, 0),
            ),
        ),
        ev.RoundStarted(at, 2, dealt.faces[1], dealt.categories(2), at + WRITING_MS),
    ]
    assert events[1].categories[0] == category("red", dealt.dice[0], 1, dealt.faces[1][0])
    assert table.state.phase is Phase.WRITING and table.state.links(ANN) == {}


def test_after_round_2_the_game_ends_with_the_standings():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.everybody_done()
    table.tick(table.now + 10**7)
    scored, ended = table.events[-2:]
    assert scored == ev.RoundScored(
        table.now,
        2,
        (ev.PlayerScore(ANN, 0, 0, 1), ev.PlayerScore(BOB, 0, 0, 0), ev.PlayerScore(CY, 0, 0, 0)),
    )
    assert ended == ev.GameEnded(
        table.now,
        (ev.Standing(ANN, 1, 1, 0), ev.Standing(BOB, 2, 0, 0), ev.Standing(CY, 2, 0, 0)),
    )
    assert table.state.phase is Phase.OVER and table.state.standings == ended.standings


def test_the_most_points_win_then_the_most_matching_links_then_the_tied_share():
    rows = [("a", 6, 2), ("b", 6, 3), ("c", 4, 1), ("d", 6, 3), ("e", 4, 1)]
    assert rank(rows) == (
        ev.Standing("b", 1, 6, 3),
        ev.Standing("d", 1, 6, 3),
        ev.Standing("a", 3, 6, 2),
        ev.Standing("c", 4, 4, 1),
        ev.Standing("e", 4, 4, 1),
    )
    assert [s.place for s in rank([("x", 0, 0), ("y", 0, 0)])] == [1, 1]


def test_a_tick_far_ahead_plays_every_timer_at_its_own_instant_to_the_end():
    table = Table(settings=Settings(writing_seconds=60, vote_seconds=20))
    table.write(ANN, 2, "Shark")
    table.write(BOB, 5, "Whale")
    table.tick(T0 + 10**9)
    opened = [(e.round, e.combination, e.at, e.votes_end_at) for e in table.state.read]
    w1 = T0 + 60_000
    c2 = w1 + 20_000
    c5 = c2 + 20_000
    w2 = c5 + 60_000
    assert opened[:5] == [(1, 1, w1, w1), (1, 2, w1, c2), (1, 3, c2, c2), (1, 4, c2, c2),
                          (1, 5, c2, c5)]  # fmt: skip
    assert opened[9] == (1, 10, c5, c5) and opened[10] == (2, 1, w2, w2)
    assert [e.at for e in table.state.rounds] == [c5, w2]
    assert isinstance(table.events[-1], ev.GameEnded) and table.events[-1].at == w2
    assert table.state.standings[0] == ev.Standing(ANN, 1, 1, 0)


def test_a_command_after_a_timer_is_judged_after_it():
    table = Table()
    table.write(ANN, 1, "Shark")
    end = T0 + WRITING_MS
    events = table.vote(BOB, 1, True, end + 5)
    assert kinds(events) == ["CombinationOpened", "VoteCast"]
    assert events[0].at == end and events[1].at == end + 5


def test_a_refused_command_after_a_timer_changes_nothing_even_the_timer():
    table = Table()
    table.write(ANN, 1, "Shark")
    assert (
        table.refused(cmd.WriteLink(T0 + WRITING_MS, ANN, 2, "Whale")) is MatchFiveCode.NOT_WRITING
    )
    assert table.state.phase is Phase.WRITING


# --- every refusal's words -----------------------------------------------------------------------


def said(table: Table, command: cmd.Command) -> str:
    """The message ``command`` is refused with (it changed nothing)."""
    before = table.state
    with pytest.raises(RuleError) as caught:
        table.run(command)
    assert table.state is before
    return caught.value.message


def test_the_start_and_the_seats_refusals_in_these_words():
    table = Table()
    again = cmd.StartGame(T0, (ANN, BOB), Settings(), DEAL_VERSION)
    assert said(table, again) == "this game has already started"
    with pytest.raises(RuleError) as caught:
        decide(initial_state(deal(SEED)), cmd.StartGame(T0, (ANN,), Settings(), DEAL_VERSION))
    assert caught.value.message == "a table seats 2 to 8 players, got 1"
    with pytest.raises(RuleError) as caught:
        decide(initial_state(deal(SEED)), cmd.StartGame(T0, (ANN, ANN), Settings(), DEAL_VERSION))
    assert caught.value.message == "every player needs a distinct, non-empty id"
    with pytest.raises(ValueError) as wrong:
        decide(initial_state(), cmd.StartGame(T0, (ANN, BOB), Settings(), DEAL_VERSION))
    assert str(wrong.value) == "the referee's state must hold the deal before the game starts"
    with pytest.raises(ValueError) as wrong:
        decide(replace(table.state, deal=None), cmd.Tick(T0 + 10**9))
    assert str(wrong.value) == "the referee's state must hold the deal: a round rolls its dice"
    with pytest.raises(RuleError) as caught:
        decide(initial_state(deal(SEED)), cmd.Done(T0, ANN))
    assert caught.value.message == "the game has not started: every seat must be taken"
    table.tick(T0 + 10**9)
    assert said(table, cmd.Done(table.now, ANN)) == "the game is over; the results are final"


def test_the_writings_refusals_in_these_words():
    table = Table()
    table.write(ANN, 1, "Shark")
    assert said(table, cmd.WriteLink(T0, ANN, 11, "Fin")) == (
        "there is no combination 11: they are numbered 1 to 10 (1 is red and yellow, 10 blue "
        "and purple)"
    )
    assert said(table, cmd.WriteLink(T0, ANN, 2, "shark!")) == (
        'you wrote "Shark" for combination 1 (red and yellow) this round: a link may be used '
        "only once per game (case, accents, spaces and punctuation aside); write another"
    )
    assert said(table, cmd.WriteLink(T0, ANN, 2, "a\tb")) == (
        "the link holds a control or invisible character (U+0009): write it on one line, "
        "with letters, digits, spaces and punctuation"
    )
    assert said(table, cmd.WriteLink(T0, ANN, 2, "?!")) == (
        "the link has no letter or digit: write a word (or erase the link)"
    )
    assert said(table, cmd.Vote(T0, ANN, 1, True)) == (
        'the links are still being written: votes and "Match!" come with the reading'
    )
    table.done(ANN)
    assert said(table, cmd.WriteLink(T0, ANN, 2, "Fin")) == (
        "you said you were done writing: your links stand as they are until the reading"
    )
    assert said(table, cmd.Done(T0, ANN)) == (
        "you said you were done with writing already: wait for the others"
    )
    table.done(BOB)
    table.done(CY)
    assert table.state.phase is Phase.READING
    assert said(table, cmd.WriteLink(table.now, BOB, 2, "Fin")) == (
        "the sand timer of round 1 has run out: the links are being read; vote on them"
    )
    table.done(BOB)
    assert said(table, cmd.Done(table.now, BOB)) == (
        "you said you were done with combination 1 already: wait for the others"
    )


def test_the_readings_refusals_in_these_words():
    table = Table()
    table.write(ANN, 1, "Actor")
    table.write(BOB, 1, "Aktor")
    table.write(ANN, 2, "Sun")
    table.everybody_done()
    assert said(table, cmd.Vote(table.now, CY, 3, True)) == (
        "ballot 3 is not read yet: combination 1's ballots are 1 to 2"
    )
    assert said(table, cmd.CallMatch(table.now, ANN, 1)) == (
        '"Match!" is called on another player\'s link that matches yours'
    )
    table.call(ANN, 2)
    assert said(table, cmd.Vote(table.now, ANN, 3, True)) == (
        'the table votes on your "Match!", you do not: you called it'
    )
    assert said(table, cmd.CallMatch(table.now, BOB, 1)) == (
        '"Actor" and your "Aktor" are paired already (equal once normalised, or called before)'
    )
    table.everybody_done()  # combination 1 closes, 2 opens with Ann's "Sun": ballot 4
    assert said(table, cmd.Vote(table.now, CY, 1, True)) == (
        "ballot 1 is closed: combination 2's ballots are 4 to 4"
    )


def test_a_match_calls_count_is_the_votes_of_the_others():
    table = reading(ann="Actor", bob="Aktor")
    table.call(ANN, 2)
    table.vote(BOB, 3, True)
    table.vote(CY, 3, False)
    table.tick(table.opened().votes_end_at)
    assert table.result(3) == ev.BallotResult(3, False, 1, 1, False)


def test_groups_count_each_link_equal_to_others_once():
    assert groups(["a", "a", "a", "b", "b", "c"]) == [1, 1, 1, 2, 2, 0]
    assert groups(["c", "b", "b", "a", "a", "a"]) == [0, 1, 1, 2, 2, 2]


def test_the_state_at_the_end_holds_no_open_combination_and_links_are_read_by_round():
    table = Table()
    assert table.state.deal_version == DEAL_VERSION
    after_start = evolve(initial_state(deal(SEED)), table.events[0])  # GameStarted alone
    assert after_start.phase is Phase.WRITING and after_start.deal_version == DEAL_VERSION
    table.everybody_done()  # round 1: no link, read and scored at once; round 2 rolls
    assert table.state.round == 2
    table.write(ANN, 10, "Sun")
    table.write(BOB, 10, "sun")
    table.everybody_done()
    assert table.state.combination == 10 and table.state.ballots
    table.vote(CY, table.state.ballots[0].ballot, True)
    table.done(ANN)
    table.tick(table.state.votes_end_at)
    end = table.state
    assert end.phase is Phase.OVER
    assert (end.combination, end.votes_end_at, end.ballots, end.votes, end.done) == (
        0,
        0,
        (),
        (),
        frozenset(),
    )
    assert end.links(ANN, 2) == {10: "Sun"} and end.links(ANN, 1) == {}
    assert end.links("nobody") == {}


def test_only_match_5s_events_are_folded():
    progress = ev.WritingProgress(T0, ANN, 1)  # what a player is told, never recorded
    with pytest.raises(TypeError) as wrong:
        evolve(initial_state(), progress)  # type: ignore[arg-type]
    assert str(wrong.value) == f"not an event of MATCH 5: {progress!r}"


def test_folding_records_a_link_without_judging_who_wrote_it():
    """evolve only records: a LinkWritten folds in as it stands, the judging is decide's."""
    state = Table().state
    after = evolve(state, ev.LinkWritten(T0, "eve", 1, 3, "Shark"))
    assert after.links("eve") == {3: "Shark"}


def test_the_state_after_a_close_has_no_open_combination_and_nobody_done():
    table = Table()
    table.write(ANN, 1, "Sun")
    table.everybody_done()
    table.done(ANN)  # done with combination 1, the others not: its timer closes it
    steps = decide_steps(table.state, cmd.Tick(table.opened().votes_end_at))
    after_close = next(state for event, state in steps if isinstance(event, ev.CombinationClosed))
    assert (after_close.done, after_close.combination, after_close.votes_end_at) == (
        frozenset(),
        0,
        0,
    )


def test_the_writing_timer_out_of_bounds_in_these_words():
    with pytest.raises(RuleError) as caught:
        check_settings(Settings(writing_seconds=5))
    assert (
        caught.value.message
        == "writing_seconds is 5; the timer runs 30 to 600 s (the sand timer: 180)"
    )


def test_categories_need_a_face_for_every_die():
    with pytest.raises(ValueError):
        categories((1, 1, 1, 1, 1), 1, (1, 1, 1, 1))
