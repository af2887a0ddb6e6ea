"""The client's Play stream against a real gRPC server with scripted handlers (no stack): a
stream that breaks is opened again and the unanswered command sent again under its request id;
a server without Play is played over the unary rpcs; a refusal is the unary call's error."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from match.v1 import common_pb2, race_service_pb2
from match_client.client import MatchClient, refusal_code, retry_after_ms
from match_client.play import REOPEN_TRIES, PlayStream, play_rpc
from match_client.session import GameSession

SERVICE = "match.v1.MatchRaceService"
Request = race_service_pb2.MatchRaceServicePlayRequest
Response = race_service_pb2.MatchRaceServicePlayResponse
TOKEN = "seat-token"


class Script:
    """What the scripted lobby saw: each request id's sends, the streams opened, unary calls."""

    def __init__(self, break_first: bool) -> None:
        self.break_first = break_first
        self.sent: Counter[str] = Counter()
        self.streams = 0
        self.unary = 0
        self.metadata: list[dict[str, str]] = []
        self.batch_asked: bool | None = None

    async def play(self, requests: Any, context: Any) -> AsyncIterator[Response]:
        self.streams += 1
        self.metadata.append(dict(context.invocation_metadata()))
        async for request in requests:
            self.sent[request.request_id] += 1
            if self.break_first and self.streams == 1:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "the lobby went away")
            if request.HasField("watch"):  # two events in one item, then one alone; then over
                self.batch_asked = request.watch.batch
                one, two, three = (common_pb2.EventEnvelope(event_number=n) for n in (1, 2, 3))
                for item in (
                    race_service_pb2.WatchResponse(events=common_pb2.EventBatch(events=[one, two])),
                    race_service_pb2.WatchResponse(event=three),
                ):
                    yield Response(request_id=request.request_id, watch=item)
                return
            if request.turn_tile.tile == 99:
                yield Response(
                    request_id=request.request_id,
                    refusal=common_pb2.PlayRefusal(
                        status_code=grpc.StatusCode.INVALID_ARGUMENT.value[0],
                        message="tile must be 1 to 20",
                        refusal_code="tile_out_of_range",
                    ),
                )
            elif request.HasField("turn_tile"):
                counters = {"turns": request.turn_tile.tile}
                yield Response(request_id=request.request_id, turn_tile={"counters": counters})
            elif request.HasField("press_ready"):
                yield Response(
                    request_id=request.request_id,
                    refusal=common_pb2.PlayRefusal(
                        status_code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0],
                        message="too many requests from this player: wait 70 ms and try again",
                        retry_after_ms=70,
                    ),
                )

    async def turn_tile(self, request: Any, context: Any) -> Any:
        self.unary += 1
        return race_service_pb2.TurnTileResponse(counters={"turns": request.tile})


async def serve(script: Script, with_play: bool) -> tuple[Any, int]:
    server = grpc.aio.server()
    handlers = {
        "TurnTile": grpc.unary_unary_rpc_method_handler(
            script.turn_tile,
            request_deserializer=race_service_pb2.TurnTileRequest.FromString,
            response_serializer=race_service_pb2.TurnTileResponse.SerializeToString,
        )
    }
    if with_play:
        handlers["Play"] = grpc.stream_stream_rpc_method_handler(
            script.play,
            request_deserializer=Request.FromString,
            response_serializer=Response.SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


@pytest.mark.parametrize("break_first", [False, True])
async def test_commands_go_over_one_stream_and_a_broken_one_is_opened_again(
    break_first: bool,
) -> None:
    script = Script(break_first)
    server, port = await serve(script, with_play=True)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            first = await session.send("TurnTile", request_id="a" * 32, tile=3)
            second = await session.send("TurnTile", tile=4)
            assert (first.counters.turns, second.counters.turns) == (3, 4)
            assert session.playing and script.unary == 0
            # Broken after the first send: the same request id went again, on a second stream.
            assert script.sent["a" * 32] == (2 if break_first else 1)
            assert script.streams == (2 if break_first else 1)
            assert script.metadata[0]["authorization"] == f"Bearer {TOKEN}"
            await session.close()
    finally:
        await server.stop(None)


async def test_a_refusal_is_the_unary_calls_error_and_the_stream_goes_on() -> None:
    script = Script(break_first=False)
    server, port = await serve(script, with_play=True)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await session.send("TurnTile", tile=99)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert refused.value.details() == "tile must be 1 to 20"
            assert refusal_code(refused.value) == "tile_out_of_range"
            with pytest.raises(grpc.aio.AioRpcError) as limited:
                await session.send("PressReady")
            assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_after_ms(limited.value) == 70
            assert (await session.send("TurnTile", tile=5)).counters.turns == 5
            assert script.streams == 1
            await session.close()
    finally:
        await server.stop(None)


async def test_a_server_without_play_is_played_over_the_unary_rpcs() -> None:
    script = Script(break_first=False)
    server, port = await serve(script, with_play=False)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            assert (await session.send("TurnTile", tile=7)).counters.turns == 7
            assert not session.playing
            assert (await session.send("TurnTile", tile=8)).counters.turns == 8
            assert script.unary == 2
    finally:
        await server.stop(None)


async def test_commands_sent_at_once_all_go_and_are_all_answered() -> None:
    """gRPC allows one write in flight on a stream: commands sent by tasks at the same moment
    (a view starting while a move is made) must queue, not be dropped."""
    script = Script(break_first=False)
    server, port = await serve(script, with_play=True)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            answers = await asyncio.gather(
                *(session.send("TurnTile", tile=tile) for tile in range(1, 41))
            )
            assert [a.counters.turns for a in answers] == list(range(1, 41))
            assert script.streams == 1 and sum(script.sent.values()) == 40
            await session.close()
    finally:
        await server.stop(None)


async def test_the_view_is_asked_for_in_batches_and_handed_on_one_event_each() -> None:
    script = Script(break_first=False)
    server, port = await serve(script, with_play=True)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            got = [item async for item in session.watch(0)]
            assert script.batch_asked is True
            assert [item.WhichOneof("item") for item in got] == ["event"] * 3
            assert [item.event.event_number for item in got] == [1, 2, 3]
            await session.close()
    finally:
        await server.stop(None)


class Ending:
    """A lobby whose first stream breaks (UNAVAILABLE) once a command reaches it, unanswered,
    and whose later streams it ends with ``later`` (UNAUTHENTICATED: the seat given up;
    UNAVAILABLE: the lobby going away): at once, before reading anything, or, with
    ``answer_first``, right after answering the first command that comes."""

    def __init__(self, later: grpc.StatusCode, details: str, answer_first: bool = False) -> None:
        self.later, self.details, self.answer_first = later, details, answer_first
        self.streams = 0

    async def play(self, requests: Any, context: Any) -> AsyncIterator[Response]:
        self.streams += 1
        if self.streams > 1 and not self.answer_first:
            await context.abort(self.later, self.details)
        first = self.streams == 1
        async for request in requests:
            if first:
                await asyncio.sleep(0.05)  # the other commands reach it too, unanswered
                await context.abort(grpc.StatusCode.UNAVAILABLE, "the lobby went away")
            yield Response(request_id=request.request_id, turn_tile={"counters": {"turns": 1}})
            await context.abort(self.later, self.details)


async def serve_ending(script: Ending) -> tuple[Any, int]:
    server = grpc.aio.server()
    play = grpc.stream_stream_rpc_method_handler(
        script.play,
        request_deserializer=Request.FromString,
        response_serializer=Response.SerializeToString,
    )
    handlers = {"Play": play}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def outcomes(session: GameSession, commands: int) -> Counter[str]:
    """How each of ``commands`` moves sent at once ended: "code: details", or the exception."""

    async def one(tile: int) -> str:
        try:
            await session.send("TurnTile", tile=tile)
            return "answered"
        except grpc.aio.AioRpcError as error:
            return f"{error.code().name}: {error.details()}"
        except Exception as error:
            return repr(error)

    return Counter(await asyncio.gather(*(one(tile) for tile in range(1, commands + 1))))


@pytest.mark.parametrize("commands", [1, 40])
async def test_a_seat_given_up_is_told_why_not_that_the_call_was_finished(commands: int) -> None:
    """The stream breaks with commands unanswered; the stream opened for them is ended at once
    (the seat was given up meanwhile). Every command ends with the server's own status and
    message: a write that finds the new stream already over does not stand in for it."""
    gone = "you left this table, so this token no longer works; join again for a new one"
    script = Ending(grpc.StatusCode.UNAUTHENTICATED, gone)
    server, port = await serve_ending(script)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            assert await outcomes(session, commands) == {f"UNAUTHENTICATED: {gone}": commands}
            assert script.streams == 2  # UNAUTHENTICATED is final: no third stream
            await session.close()
    finally:
        await server.stop(None)


async def test_streams_that_keep_ending_are_reopened_a_few_times_not_once_per_command() -> None:
    """Every new stream ends at once, UNAVAILABLE, with 40 commands unanswered: one reopening
    at a time tries REOPEN_TRIES new streams, and each command ends with the server's status
    and message, not grpc's "RPC already finished." or "Internal error from Core"."""
    script = Ending(grpc.StatusCode.UNAVAILABLE, "the lobby is restarting")
    server, port = await serve_ending(script)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            got = await outcomes(session, 40)
            assert got == {"UNAVAILABLE: the lobby is restarting": 40}
            assert script.streams == 1 + REOPEN_TRIES
            await session.close()
    finally:
        await server.stop(None)


async def test_a_stream_that_answers_one_command_and_ends_gives_the_rest_its_status() -> None:
    """On the stream opened again the server answers the first command sent again, then ends
    the stream (the seat given up). The others are not written while that could race the end
    (grpc would report "Internal error from Core" for them instead): they get its status."""
    gone = "you left this table, so this token no longer works; join again for a new one"
    script = Ending(grpc.StatusCode.UNAUTHENTICATED, gone, answer_first=True)
    server, port = await serve_ending(script)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=5) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            got = await outcomes(session, 40)
            assert got == {"answered": 1, f"UNAUTHENTICATED: {gone}": 39}
            assert script.streams == 2
            await session.close()
    finally:
        await server.stop(None)


async def test_a_caller_cancelled_while_sending_does_not_break_the_stream() -> None:
    """A caller that gives up on a command while it is being written (a task cancelled) must
    not cancel the stream every other command shares: the next command is answered."""
    script = Script(break_first=False)
    server, port = await serve(script, with_play=True)
    try:
        async with MatchClient(f"127.0.0.1:{port}", timeout=2) as client:
            session = GameSession(client, "race", "t" * 12, TOKEN)
            assert (await session.send("TurnTile", tile=1)).counters.turns == 1
            given_up = asyncio.create_task(session.send("TurnTile", tile=2))
            await asyncio.sleep(0)  # it is writing to the stream
            given_up.cancel()
            with pytest.raises(asyncio.CancelledError):
                await given_up
            assert (await session.send("TurnTile", tile=3)).counters.turns == 3
            await session.close()
    finally:
        await server.stop(None)


class _ViewLeftDuringReopen(PlayStream):
    """A Play stream whose view is left (a watch the caller broke out of, which closes the
    stream and reopens it for what waits) just as its reopening writes its first command."""

    left = False

    async def _write(self, call: Any, message: Any) -> None:
        if self.opened == 2 and not self.left:
            self.left = True
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._restart()))
        await super()._write(call, message)


async def test_a_stream_closed_before_its_first_write_went_out_does_not_stall_the_seat() -> None:
    """grpc.aio's first write on a call waits for the call's headers to go out, and waits for
    ever on a call cancelled before they did: the seat's commands must not queue behind it."""
    script = Script(break_first=True)
    server, port = await serve(script, with_play=True)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    rpc = play_rpc("race")
    assert rpc is not None
    stream = _ViewLeftDuringReopen(channel, rpc, (("authorization", f"Bearer {TOKEN}"),), 2.0)
    try:
        first = await stream.call("TurnTile", race_service_pb2.TurnTileRequest(tile=1))
        second = await stream.call("TurnTile", race_service_pb2.TurnTileRequest(tile=2))
        assert (first.counters.turns, second.counters.turns) == (1, 2)
        assert stream.left and stream.opened == 3
    finally:
        await stream.close()
        await channel.close()
        await server.stop(None)
