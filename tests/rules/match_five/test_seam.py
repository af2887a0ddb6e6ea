"""MATCH 5's adapter at its edges: the wire commands and the ones a client may not send, the
lobby's cheap checks of a request, and the replay's text for people."""

from __future__ import annotations

import pytest

from match.v1 import common_pb2, match_five_command_pb2, match_five_service_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import ENDING, OPENING, PLAYING
from match_rules.match_five import commands as cmd
from match_rules.match_five import events as ev
from match_rules.match_five.game import GAME
from match_rules.match_five.settings import Settings
from tests.rules.match_five.helpers import ANN, BOB, T0, every_event

Command = match_five_command_pb2.MatchFiveCommand
service = match_five_service_pb2


class Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"+{ms - T0} ms"


def test_the_wire_commands_and_the_ones_a_client_may_not_send():
    def command(**member: object) -> cmd.Command:
        return GAME.command(Command(player_id=ANN, **member), T0)  # type: ignore[arg-type]

    link = Command.WriteLink(combination=3, text=" Shark! ")
    assert command(write_link=link) == cmd.WriteLink(T0, ANN, 3, " Shark! ")
    assert command(erase_link=Command.EraseLink(combination=3)) == cmd.EraseLink(T0, ANN, 3)
    assert command(done=Command.Done()) == cmd.Done(T0, ANN)
    vote = Command.Vote(ballot=4, accept=True)
    assert command(vote=vote) == cmd.Vote(T0, ANN, 4, True)
    assert command(call_match=Command.CallMatch(ballot=5)) == cmd.CallMatch(T0, ANN, 5)
    for bad in (Command(player_id=ANN), common_pb2.Refusal()):
        with pytest.raises(RuleError) as caught:
            GAME.command(bad, T0)
        assert caught.value.code is Code.MALFORMED_REQUEST


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        (service.WriteLinkRequest(table_id="t", combination=1, text="a" * 1_000), None),
        (service.WriteLinkRequest(combination=1, text="a" * 1_001), "1001 characters"),
        # the rules' own refusals, with their codes: the referee's to make
        (service.WriteLinkRequest(combination=11, text="a" * 61), None),
        (service.WriteLinkRequest(combination=1, text="a\nb"), None),
        (service.EraseLinkRequest(combination=0), None),
        (service.VoteRequest(ballot=0), None),
        (service.CallMatchRequest(ballot=0), None),
        (service.DoneRequest(), None),
    ],
)
def test_the_edge_refuses_only_a_text_no_link_could_be(request_, says):
    problem = GAME.check_request(request_)
    if says is None:
        assert problem is None
    else:
        assert problem is not None and says in problem and "at most 60" in problem


def test_every_event_is_told_in_one_line_in_its_round():
    t = Teller()
    logged = [e for e in every_event() if not isinstance(e, ev.WritingProgress)]
    told = {type(e).__name__ + str(i): GAME.describe(e, t).text for i, e in enumerate(logged)}
    assert told == {
        "GameStarted0": (
            "the game starts for Ann, Bob: 180 s to write, 45 s to vote on each combination; "
            "the dice: red 1, yellow 2, green 1, blue 2, purple 1; dealt with match-five-deal-v1"
        ),
        "RoundStarted1": "round 2, side B: red a, yellow b, green c, blue d, purple e; "
        "writing until +1 ms",
        "LinkWritten2": 'Ann writes " Shark! " for combination 3 (red and blue)',
        "LinkErased3": "Ann erases their link for combination 3 (red and blue)",
        "PlayerDone4": "Ann is done writing",
        "CombinationOpened5": 'combination 4 (red and purple) is read: #5 Ann "Sun" (group 1); '
        '#6 Bob "sun" (group 1); votes until +9 ms',
        "CombinationOpened6": "combination 5 (yellow and green) is read: no link",
        "VoteCast7": "Bob votes no on #5",
        "MatchCalled8": 'Ann calls "Match!" between their #5 and #6: ballot #7',
        "CombinationClosed9": "combination 4 (red and purple) closes: #5 accepted 1-0, #6 "
        "refused 0-1, without its author's vote; points: Ann 2 (matching), Bob 0",
        "RoundScored10": "round 1 is scored: Ann 12 (3 matching, 12 in all), Bob 0 (0 "
        "matching, 0 in all)",
        "GameEnded11": "the game ends",
    }
    more = {
        ev.PlayerDone(T0, BOB, 1, 4): "Bob is done with combination 4",
        ev.VoteCast(T0, BOB, 5, True): "Bob votes yes on #5",
        ev.CombinationClosed(T0, 2, 7, (), ()): "combination 7 (yellow and purple) closes",
    }
    for event, text in more.items():
        assert GAME.describe(event, t).text == text
    with pytest.raises(TypeError):
        GAME.describe(object(), t)  # type: ignore[arg-type]


def test_a_round_is_its_own_part_with_its_combinations_and_the_end_has_the_standings():
    t = Teller()
    events = every_event()
    started, rolled, written = events[:3]
    assert GAME.place(started).part == OPENING
    assert GAME.place(rolled).part == 2 and GAME.place(rolled).starts
    assert GAME.place(written).part == 1 and not GAME.place(written).starts
    assert GAME.place(ev.VoteCast(T0, BOB, 5, True)).part == PLAYING
    assert GAME.place(ev.MatchCalled(T0, ANN, 7, 5, 6)).part == PLAYING
    assert GAME.place(events[-1]).part == ENDING
    assert GAME.heading(1) == "round 1" and GAME.heading(ENDING).startswith("end of the game")
    after = GAME.describe(rolled, t).after
    assert after[0] == "round 2's combinations:" and len(after) == 11
    assert (
        after[1] == "    1. red and yellow: a / b" and after[10] == "    10. blue and purple: d / e"
    )
    assert GAME.describe(events[-1], t).after == (
        "standings:",
        "    1. Ann: 23 points, 4 matching links",
        "    2. Bob: 11 points, 1 matching link",
    )
    round_1 = ev.RoundStarted(T0, 1, (1,) * 5, ("a",) * 5, T0)
    assert "round 1, side A" in GAME.describe(round_1, t).text


def test_settings_and_commands_for_people():
    t = Teller()
    assert GAME.describe_settings(GAME.settings(None)) == (
        "180 s to write, 45 s to vote on each combination"
    )
    said = {
        "write": Command(player_id=ANN, write_link=Command.WriteLink(combination=2, text="Sun")),
        "erase": Command(player_id=ANN, erase_link=Command.EraseLink(combination=2)),
        "done": Command(player_id=ANN, done=Command.Done()),
        "yes": Command(player_id=ANN, vote=Command.Vote(ballot=3, accept=True)),
        "no": Command(player_id=ANN, vote=Command.Vote(ballot=3)),
        "call": Command(player_id=ANN, call_match=Command.CallMatch(ballot=4)),
        "": Command(player_id=ANN),
    }
    assert {k: GAME.describe_command(v, t) for k, v in said.items()} == {
        "write": 'Ann writes "Sun" for combination 2',
        "erase": "Ann erases their link for combination 2",
        "done": "Ann is done",
        "yes": "Ann votes yes on #3",
        "no": "Ann votes no on #3",
        "call": 'Ann calls "Match!" on #4',
        "": "Ann sends nothing",
    }


def test_the_refusals_of_malformed_wire_name_what_to_send():
    with pytest.raises(RuleError) as caught:
        GAME.command(common_pb2.Refusal(), T0)  # type: ignore[arg-type]
    assert caught.value.message == "a MATCH 5 table takes MatchFiveCommand, not Refusal"
    with pytest.raises(RuleError) as caught:
        GAME.command(Command(player_id=ANN), T0)
    assert caught.value.message == (
        "send one of write_link (a combination and its link), erase_link, done, vote (a "
        "ballot, accept or not) or call_match (a ballot)"
    )


def test_a_link_in_no_group_is_told_without_one_and_other_events_have_nothing_after():
    t = Teller()
    opened = ev.CombinationOpened(
        T0, 1, 2, (ev.ReadLink(1, ANN, "Sun", 0), ev.ReadLink(2, BOB, "Moon", 0)), T0 + 9
    )
    assert GAME.describe(opened, t).text == (
        'combination 2 (red and green) is read: #1 Ann "Sun"; #2 Bob "Moon"; votes until +9 ms'
    )
    assert GAME.describe(ev.VoteCast(T0, BOB, 1, True), t).after == ()
    with pytest.raises(TypeError) as wrong:
        GAME.describe("x", t)  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of MATCH 5: 'x'"


def test_an_event_with_a_die_or_a_category_short_is_not_told():
    """Five colours, five dice, five categories: a forged event with four is refused, never
    told as if the fifth were not there."""
    t = Teller()
    with pytest.raises(ValueError):
        GAME.describe(ev.GameStarted(T0, (ANN, BOB), Settings(), "v", (1, 2, 1, 2)), t)
    with pytest.raises(ValueError):
        GAME.describe(ev.RoundStarted(T0, 1, (1,) * 5, ("a",) * 4, T0), t)
