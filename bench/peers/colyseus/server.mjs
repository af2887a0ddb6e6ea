// The race's turn as a Colyseus room (Colyseus 0.16, WebSocket transport), for the peer
// measurement of `make bench-peer` (libs/match_bench/peer.py).
//
//   node server.mjs [port]      prints "ready <port>" once it listens
//
// RaceRoom: 2 players, one 4x5 board each dealt from the room's seed (both the same layout, as in
// the race), `boards` boards in a game. Message `turn {id, tile}`: validate (1..20, the board
// started and not over for that player, not paused, not face up or found), flip, pair or miss (a
// miss pauses that player's board 1000 ms). The sender gets `turned` with its own view of the
// turn (the symbol it turned, the tiles turned back down, its counts); the other player gets
// `progress` (pairs and turns only: never a tile or a symbol). A refusal is `refused {id, code}`.
// No state schema: nothing is synchronised but these messages, so no hidden face leaves the room.
//
// Colyseus keeps every room in this process's memory and writes nothing anywhere: a crash loses
// every game in play, and nothing is left to audit or replay.

// `colyseus` (the umbrella package) re-exports @colyseus/core, but as CommonJS only: imported from
// ESM next to the ESM WebSocket transport it would be a second copy of the matchmaker. Its server
// is @colyseus/core, taken here directly, without its Redis drivers.
import { Room, Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { PlayerBoard, Refused, deal } from "./race.mjs";

export class RaceRoom extends Room {
  maxClients = 2;

  onCreate(options) {
    this.seed = Number(options.seed ?? 1) >>> 0;
    this.boards = Math.max(1, Number(options.boards ?? 3));
    this.board = 0; // 0 until both players have joined
    this.players = new Map(); // sessionId -> {seat, board: PlayerBoard}
    this.onMessage("turn", (client, message) => this.turn(client, message));
  }

  onJoin(client) {
    this.players.set(client.sessionId, { seat: this.players.size + 1, board: null });
    if (this.players.size === this.maxClients) this.nextBoard();
  }

  onLeave(client) {
    const player = this.players.get(client.sessionId);
    if (player?.board) player.board.done = true;
    this.players.delete(client.sessionId);
  }

  nextBoard() {
    this.board += 1;
    if (this.board > this.boards) {
      this.broadcast("over", { boards: this.boards });
      return;
    }
    const layout = deal(this.seed, this.board);
    for (const player of this.players.values()) player.board = new PlayerBoard(layout);
    // Board 1 starts when the second player is seated (the joiner's SDK has no handler yet).
    if (this.board > 1) this.broadcast("board", { board: this.board });
  }

  turn(client, message) {
    const id = message?.id;
    const player = this.players.get(client.sessionId);
    try {
      if (this.board > this.boards) throw new Refused("game_over");
      if (!player?.board) throw new Refused("board_not_started");
      const seen = player.board.turn(message?.tile, Date.now());
      const { pairs, turns, done } = player.board;
      client.send("turned", { id, board: this.board, ...seen, pairs, turns, done });
      this.broadcast(
        "progress",
        { seat: player.seat, board: this.board, pairs, turns, done },
        { except: client },
      );
      if (done && [...this.players.values()].every((p) => p.board.done)) this.nextBoard();
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      client.send("refused", { id, code: error.code });
    }
  }
}

export async function serve(port) {
  const server = new Server({ transport: new WebSocketTransport(), greet: false });
  server.define("race", RaceRoom);
  await server.listen(port, "127.0.0.1");
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? 2567);
  await serve(port); // Colyseus shuts down by itself on SIGTERM and SIGINT
  process.stdout.write(`ready ${port}\n`);
}
