"""A referee's MATCH 5 game in memory: the deal of a known seed, commands at chosen instants."""

from __future__ import annotations

import pytest

from match_rules.errors import Code, RuleError
from match_rules.match_five import commands as cmd
from match_rules.match_five import events as ev
from match_rules.match_five.deal import DEAL_VERSION, deal
from match_rules.match_five.decide import decide_steps
from match_rules.match_five.settings import Settings
from match_rules.match_five.state import MatchFiveState, initial_state

T0 = 1_000_000
WRITING_MS = 180_000
VOTE_MS = 45_000
ANN, BOB, CY, DAN = "ann", "bob", "cy", "dan"
SEED = bytes(32)


class Table:
    def __init__(
        self,
        players: tuple[str, ...] = (ANN, BOB, CY),
        settings: Settings | None = None,
        seed: bytes = SEED,
    ) -> None:
        self.dealt = deal(seed)
        self.state: MatchFiveState = initial_state(self.dealt)
        self.players = players
        self.events: list[ev.Event] = []
        self.run(cmd.StartGame(T0, players, settings or Settings(), DEAL_VERSION))

    @property
    def now(self) -> int:
        return self.state.now

    def run(self, command: cmd.Command) -> list[ev.Event]:
        steps = decide_steps(self.state, command)
        for event, after in steps:
            self.state = after
            self.events.append(event)
        return [e for e, _ in steps]

    def refused(self, command: cmd.Command) -> Code:
        """The code ``command`` is refused with; it changed nothing."""
        before = self.state
        with pytest.raises(RuleError) as error:
            self.run(command)
        assert self.state is before and error.value.message
        return error.value.code

    def _at(self, at: int | None) -> int:
        return self.now if at is None else at

    def write(self, player: str, combination: int, text: str, at: int | None = None) -> list:
        return self.run(cmd.WriteLink(self._at(at), player, combination, text))

    def erase(self, player: str, combination: int, at: int | None = None) -> list:
        return self.run(cmd.EraseLink(self._at(at), player, combination))

    def done(self, player: str, at: int | None = None) -> list:
        return self.run(cmd.Done(self._at(at), player))

    def everybody_done(self, at: int | None = None) -> list:
        return [e for p in self.players for e in self.done(p, at)]

    def vote(self, player: str, ballot: int, accept: bool = True, at: int | None = None) -> list:
        return self.run(cmd.Vote(self._at(at), player, ballot, accept))

    def call(self, player: str, ballot: int, at: int | None = None) -> list:
        return self.run(cmd.CallMatch(self._at(at), player, ballot))

    def tick(self, at: int) -> list:
        return self.run(cmd.Tick(at))

    def opened(self) -> ev.CombinationOpened:
        """The open combination's reading."""
        return self.state.read[-1]

    def result(self, ballot: int) -> ev.BallotResult:
        return next(r for c in self.state.closed for r in c.results if r.ballot == ballot)

    def score(self, ballot: int) -> ev.LinkScore:
        return next(s for c in self.state.closed for s in c.scores if s.ballot == ballot)


def kinds(events: list) -> list[str]:
    return [type(e).__name__ for e in events]


def every_event() -> list:
    """One of each event (and WritingProgress), with nested values, for the wire and the replay."""
    settings = Settings()
    return [
        ev.GameStarted(T0, (ANN, BOB), settings, "match-five-deal-v1", (1, 2, 1, 2, 1)),
        ev.RoundStarted(T0, 2, (1, 2, 3, 4, 5), ("a", "b", "c", "d", "e"), T0 + 1),
        ev.LinkWritten(T0, ANN, 1, 3, " Shark! "),
        ev.LinkErased(T0, ANN, 1, 3),
        ev.WritingProgress(T0, ANN, 4),
        ev.PlayerDone(T0, ANN, 1, 0),
        ev.CombinationOpened(
            T0, 1, 4, (ev.ReadLink(5, ANN, "Sun", 1), ev.ReadLink(6, BOB, "sun", 1)), T0 + 9
        ),
        ev.CombinationOpened(T0, 1, 5, (), T0),
        ev.VoteCast(T0, BOB, 5, False),
        ev.MatchCalled(T0, ANN, 7, 5, 6),
        ev.CombinationClosed(
            T0,
            1,
            4,
            (ev.BallotResult(5, True, 1, 0, False), ev.BallotResult(6, False, 0, 1, True)),
            (ev.LinkScore(5, ANN, True, 2), ev.LinkScore(6, BOB, False, 0)),
        ),
        ev.RoundScored(T0, 1, (ev.PlayerScore(ANN, 12, 3, 12), ev.PlayerScore(BOB, 0, 0, 0))),
        ev.GameEnded(T0, (ev.Standing(ANN, 1, 23, 4), ev.Standing(BOB, 2, 11, 1))),
    ]
