"""MATCH 5's log told for people (``match-audit replay``): the start with the table, then each
round its own section whose times count from its roll (every link as written, every Done, each
combination read with its links, every vote and "Match!", each close with its results and
points, the round's score boxes), and the standings under the end. Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from match.v1 import match_five_command_pb2
from match_rules.game import ENDING, OPENING, PLAYING, Place, Teller, Told
from match_rules.match_five import events as ev
from match_rules.match_five.content import COLOURS, COMBINATIONS, combination_name
from match_rules.match_five.settings import Settings
from match_rules.words import count

_ROUNDED = (
    ev.RoundStarted,
    ev.LinkWritten,
    ev.LinkErased,
    ev.PlayerDone,
    ev.CombinationOpened,
    ev.CombinationClosed,
    ev.RoundScored,
)


def place(event: Any) -> Place:
    if isinstance(event, ev.GameStarted):
        return Place(OPENING)
    if isinstance(event, ev.GameEnded):
        return Place(ENDING)
    if isinstance(event, _ROUNDED):
        return Place(event.round, isinstance(event, ev.RoundStarted))
    return Place(PLAYING)  # a vote or a "Match!": in the round being read


def heading(part: int) -> str:
    return "end of the game (times from round 2's roll)" if part == ENDING else f"round {part}"


def settings_text(settings: Settings) -> str:
    return (
        f"{settings.writing_seconds} s to write, {settings.vote_seconds} s to vote on each "
        "combination"
    )


def _combination(n: int) -> str:
    return f"combination {n} ({combination_name(n)})"


def _dice(dice: tuple[int, ...]) -> str:
    return ", ".join(f"{c} {d}" for c, d in zip(COLOURS, dice, strict=True))


def _started(t: Teller, e: ev.RoundStarted) -> str:
    # pragma: no mutate start (equivalent: describe() zipped the categories strictly)
    rolled = ", ".join(f"{c} {name}" for c, name in zip(COLOURS, e.categories, strict=True))
    # pragma: no mutate end
    side = "A" if e.round == 1 else "B"
    return f"round {e.round}, side {side}: {rolled}; writing until {t.when(e.writing_ends_at)}"


def _opened(t: Teller, e: ev.CombinationOpened) -> str:
    if not e.links:
        return f"{_combination(e.combination)} is read: no link"
    links = "; ".join(
        f'#{k.ballot} {t.name(k.player)} "{k.text}"' + (f" (group {k.group})" if k.group else "")
        for k in e.links
    )
    return f"{_combination(e.combination)} is read: {links}; votes until {t.when(e.votes_end_at)}"


def _result(r: ev.BallotResult) -> str:
    said = "accepted" if r.accepted else "refused"
    ignored = ", without its author's vote" if r.author_ignored else ""
    return f"#{r.ballot} {said} {r.accepts}-{r.contests}{ignored}"


def _closed(t: Teller, e: ev.CombinationClosed) -> str:
    if not e.scores:
        return f"{_combination(e.combination)} closes"
    results = ", ".join(_result(r) for r in e.results)
    points = ", ".join(
        f"{t.name(s.player)} {s.points}" + (" (matching)" if s.matching else "") for s in e.scores
    )
    return f"{_combination(e.combination)} closes: {results}; points: {points}"


_TEXT: dict[type, Callable[[Teller, Any], str]] = {
    ev.GameStarted: lambda t, e: (
        f"the game starts for {', '.join(t.name(p) for p in e.players)}: "
        f"{settings_text(e.settings)}; the dice: {_dice(e.dice)}; dealt with {e.deal_version}"
    ),
    ev.RoundStarted: _started,
    ev.LinkWritten: lambda t, e: (
        f'{t.name(e.player)} writes "{e.text}" for {_combination(e.combination)}'
    ),
    ev.LinkErased: lambda t, e: (
        f"{t.name(e.player)} erases their link for {_combination(e.combination)}"
    ),
    ev.PlayerDone: lambda t, e: (
        f"{t.name(e.player)} is done "
        + ("writing" if e.combination == 0 else f"with combination {e.combination}")
    ),
    ev.CombinationOpened: _opened,
    ev.VoteCast: lambda t, e: (
        f"{t.name(e.player)} votes {'yes' if e.accept else 'no'} on #{e.ballot}"
    ),
    ev.MatchCalled: lambda t, e: (
        f'{t.name(e.player)} calls "Match!" between their #{e.own} and #{e.target}: '
        f"ballot #{e.ballot}"
    ),
    ev.CombinationClosed: _closed,
    ev.RoundScored: lambda t, e: (
        f"round {e.round} is scored: "
        + ", ".join(
            f"{t.name(s.player)} {s.points} ({s.matching} matching, {s.total} in all)"
            for s in e.scores
        )
    ),
    ev.GameEnded: lambda t, e: "the game ends",
}


def describe(event: Any, teller: Teller) -> Told:
    text = _TEXT.get(type(event))
    if text is None:
        raise TypeError(f"not an event of MATCH 5: {event!r}")
    after: tuple[str, ...] = ()
    if isinstance(event, ev.RoundStarted):
        categories = dict(zip(COLOURS, event.categories, strict=True))
        after = (
            f"round {event.round}'s combinations:",
            *(
                f"    {n}. {a} and {b}: {categories[a]} / {categories[b]}"
                for n, (a, b) in enumerate(COMBINATIONS, start=1)
            ),
        )
    elif isinstance(event, ev.GameEnded):
        after = (
            "standings:",
            *(
                f"    {s.place}. {teller.name(s.player)}: {count(s.points, 'point')}, "
                f"{count(s.matching, 'matching link')}"
                for s in event.standings
            ),
        )
    return Told(text(teller, event), after)


def describe_command(wire: Message, teller: Teller) -> str:
    assert isinstance(wire, match_five_command_pb2.MatchFiveCommand)
    who = teller.name(wire.player_id)
    which = wire.WhichOneof("command")
    if which == "write_link":
        w = wire.write_link
        return f'{who} writes "{w.text}" for combination {w.combination}'
    if which == "erase_link":
        return f"{who} erases their link for combination {wire.erase_link.combination}"
    if which == "vote":
        return f"{who} votes {'yes' if wire.vote.accept else 'no'} on #{wire.vote.ballot}"
    if which == "call_match":
        return f'{who} calls "Match!" on #{wire.call_match.ballot}'
    return f"{who} {'is done' if which == 'done' else 'sends nothing'}"
