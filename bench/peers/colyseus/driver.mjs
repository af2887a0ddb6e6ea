// Load for the Colyseus peer, in the shapes of match_bench (libs/match_bench/run.py, players.py),
// through the client SDK (colyseus.js 0.16). Prints one JSON object on its last line of stdout.
//
//   node driver.mjs --url ws://127.0.0.1:2567 --mode full  [--rooms 200 --concurrency 64
//                   --warmup 8 --seconds 20] [--server-pid PID]
//   node driver.mjs --url ... --mode human [--levels 250,500,1000 --seconds 15
//                   --turns-per-room-s 1.3]
//   node driver.mjs --url ... --mode check     (a miss pauses, bad tiles are refused)
//
// full: rooms of 2 players turn as fast as replies come with at most `concurrency` turns in
//   flight (a closed loop: a player waits for a slot outside the timed turn); a room whose game
//   (3 boards) is over is left and a new one opened, as match_bench's full speed opens new tables.
// human: a ramp of live rooms; each player turns every 2/1.3 s (x uniform 0.8-1.2), 1.3 turns/s
//   per room, as match_bench's human pace; the rooms' games never end during the ramp.
// Players know the deal (race.mjs) and only ever turn pairs: no miss, no pause, like ours.
// Latency: from sending `turn` to the `turned` reply arriving (client side).

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client } from "colyseus.js";
import { deal, pairsOf } from "./race.mjs";

const argv = process.argv.slice(2);
function arg(name, fallback) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
}
const URL = arg("url", "ws://127.0.0.1:2567");
const MODE = arg("mode", "full");
const SERVER_PID = Number(arg("server-pid", "0"));
const log = (text) => process.stderr.write(`[driver ${MODE}] ${text}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const uniform = (a, b) => a + Math.random() * (b - a);

// --- figures ------------------------------------------------------------------------------------

function percentile(values, q) {
  if (!values.length) return NaN;
  const ordered = Float64Array.from(values).sort();
  return ordered[Math.min(ordered.length - 1, Math.floor((q / 100) * ordered.length))];
}

function latencyMs(values) {
  const out = {};
  // seconds in, milliseconds out (2 decimals), as match_bench.run.latency_ms
  for (const q of [50, 95, 99]) out[`p${q}`] = Math.round(percentile(values, q) * 1e5) / 100;
  return out;
}

function newStats() {
  return { latencies: [], refused: {}, errors: {} };
}

function cpuSeconds(pid) {
  // utime + stime of /proc/<pid>/stat, in seconds (USER_HZ is 100 on Linux)
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function cpuNow() {
  const own = process.cpuUsage();
  const cpu = { driver: (own.user + own.system) / 1e6 };
  if (SERVER_PID) cpu.server = cpuSeconds(SERVER_PID);
  return cpu;
}

class Semaphore {
  constructor(n) {
    this.free = n;
    this.waiting = [];
  }
  async acquire() {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise((resolve) => this.waiting.push(resolve));
  }
  release() {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

// `area` integrates the turns in flight over time (turn-seconds): a window's time-weighted mean
// in flight is its growth over the window's length, as match_bench's Sink.
const sink = {
  stats: newStats(),
  inFlight: 0,
  area: 0,
  changed: performance.now(),
  limit: null,
  flight() {
    const now = performance.now();
    this.area += (this.inFlight * (now - this.changed)) / 1000;
    this.changed = now;
    return this.area;
  },
};
const stop = { set: false };

async function window(seconds) {
  sink.stats = newStats();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const area0 = sink.flight();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const meanInFlight = (sink.flight() - area0) / elapsed;
  const cpu1 = cpuNow();
  const stats = sink.stats;
  sink.stats = newStats();
  const cpu = {};
  for (const k of Object.keys(cpu1)) cpu[k] = Math.round((cpu1[k] - cpu0[k]) * 1000) / 1000;
  const turns = Math.max(stats.latencies.length, 1);
  const all = Object.values(cpu).reduce((a, b) => a + b, 0);
  return {
    turns: stats.latencies.length,
    seconds: Math.round(elapsed * 100) / 100,
    turns_per_s: Math.round((stats.latencies.length / elapsed) * 10) / 10,
    latency_ms: latencyMs(stats.latencies),
    mean_in_flight: Math.round(meanInFlight * 10) / 10,
    refused: stats.refused,
    errors: stats.errors,
    cpu_s: cpu,
    server_cpu_us_per_turn: Math.round(((cpu.server ?? 0) / turns) * 1e6),
    driver_cpu_us_per_turn: Math.round((cpu.driver / turns) * 1e6),
    all_cpu_us_per_turn: Math.round((all / turns) * 1e6),
  };
}

// --- a player -----------------------------------------------------------------------------------

class Seat {
  constructor(room, seed) {
    this.room = room;
    this.seed = seed;
    this.board = 1; // both seated: the room has dealt board 1
    this.latestBoard = 1;
    this.over = false;
    this.progress = 0; // `progress` messages about the other player
    this.lastProgress = null;
    this.nextId = 1;
    this.pending = new Map();
    this.boardWaiters = [];
    room.onMessage("turned", (m) => this.settle(m.id, m));
    room.onMessage("refused", (m) => this.settle(m.id, m));
    room.onMessage("progress", (m) => {
      this.progress += 1;
      this.lastProgress = m;
    });
    room.onMessage("board", (m) => this.nextBoard(m.board, false));
    room.onMessage("over", () => this.nextBoard(Infinity, true));
    room.onLeave(() => this.nextBoard(Infinity, true));
  }

  settle(id, message) {
    const done = this.pending.get(id);
    if (done) {
      this.pending.delete(id);
      done(message);
    }
  }

  nextBoard(board, over) {
    this.latestBoard = Math.max(this.latestBoard, board);
    this.over ||= over;
    for (const wake of this.boardWaiters.splice(0)) wake();
  }

  /** Send `turn` and resolve with the reply (`turned` or `refused`), or {error} after 30 s. */
  turn(tile) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ error: "DEADLINE_EXCEEDED" });
      }, 30_000);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.room.send("turn", { id, tile });
    });
  }

  async waitNextBoard() {
    while (!stop.set && !this.over && this.latestBoard <= this.board) {
      await Promise.race([new Promise((r) => this.boardWaiters.push(r)), sleep(500)]);
    }
    this.board = this.latestBoard;
  }

  /** Play boards until the game is over or `stop`; `interval` seconds between turns, or 0. */
  async play(interval) {
    while (!stop.set && !this.over) {
      const order = pairsOf(deal(this.seed, this.board));
      let i = 0;
      while (i < order.length && !stop.set) {
        if (interval) await sleep(interval * uniform(0.8, 1.2) * 1000);
        if (stop.set) break;
        if (sink.limit) await sink.limit.acquire();
        const stats = sink.stats;
        sink.flight();
        sink.inFlight += 1;
        const t0 = performance.now();
        const reply = await this.turn(order[i]);
        const took = (performance.now() - t0) / 1000;
        sink.flight();
        sink.inFlight -= 1;
        if (sink.limit) sink.limit.release();
        if (reply.error) {
          stats.errors[reply.error] = (stats.errors[reply.error] ?? 0) + 1;
          continue;
        }
        if (reply.code) {
          stats.refused[reply.code] = (stats.refused[reply.code] ?? 0) + 1;
          if (reply.code === "game_over") return;
          if (reply.code === "board_over") break;
          if (reply.code === "tile_face_up") i += 1;
          else await sleep(interval ? 500 : 50);
          continue;
        }
        stats.latencies.push(took);
        i += 1;
      }
      await this.waitNextBoard();
    }
  }
}

async function openRoom(client, n, boards) {
  const seed = (n * 7919 + 1) >>> 0;
  const host = await client.create("race", { seed, boards });
  const guest = await client.joinById(host.roomId);
  return [new Seat(host, seed), new Seat(guest, seed)];
}

async function openRooms(client, count, start, boards) {
  const opened = [];
  let next = start;
  const end = start + count;
  async function worker() {
    while (next < end) {
      const n = next++;
      try {
        opened.push(await openRoom(client, n, boards));
      } catch (error) {
        log(`open room failed: ${String(error).slice(0, 200)}`);
      }
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker));
  return opened;
}

async function leave(seats) {
  await Promise.all(seats.map((s) => s.room.leave(true).catch(() => {})));
}

// --- the shapes ---------------------------------------------------------------------------------

async function full(client) {
  const rooms = Number(arg("rooms", "200"));
  const concurrency = Number(arg("concurrency", "64"));
  const warmup = Number(arg("warmup", "8"));
  const seconds = Number(arg("seconds", "20"));
  const t0 = performance.now();
  const opened = await openRooms(client, rooms, 0, 3);
  log(`opened ${opened.length} rooms in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
  sink.limit = new Semaphore(concurrency);
  let counter = rooms;
  async function table(pair) {
    await sleep(uniform(0, 1000));
    for (;;) {
      await Promise.all(pair.map((seat) => seat.play(0)));
      await leave(pair);
      if (stop.set) return;
      pair = await openRoom(client, counter++, 3); // and a new game, as match_bench does
    }
  }
  const tasks = opened.map(table);
  await sleep(warmup * 1000);
  const figures = await window(seconds);
  stop.set = true;
  await Promise.all(tasks);
  return { ...figures, rooms: opened.length, concurrency, games_opened: counter };
}

async function human(client) {
  const levels = arg("levels", "250,500,1000").split(",").map(Number);
  const seconds = Number(arg("seconds", "15"));
  const perRoom = Number(arg("turns-per-room-s", "1.3"));
  const interval = 2 / perRoom; // each of the 2 players
  const points = [];
  const tasks = [];
  const seats = [];
  let live = 0;
  for (const level of levels) {
    const need = level - live;
    const t0 = performance.now();
    const opened = await openRooms(client, need, 100_000 + live, 1e9);
    const took = (performance.now() - t0) / 1000;
    for (const pair of opened) {
      for (const seat of pair) {
        seats.push(seat);
        tasks.push(sleep(uniform(0, interval * 1000)).then(() => seat.play(interval)));
      }
    }
    live += opened.length;
    log(`${live} live rooms (+${opened.length} in ${took.toFixed(1)}s)`);
    await sleep(Math.min(5, interval * 2, seconds) * 1000);
    const figures = await window(seconds);
    points.push({ ...figures, rooms: live });
    log(`  ${figures.turns_per_s} turns/s ${JSON.stringify(figures.latency_ms)}`);
    if (opened.length < need) break;
  }
  stop.set = true;
  await Promise.all(tasks);
  await leave(seats);
  return points;
}

async function check(client) {
  // One room: a miss pauses the player's board for 1000 ms; bad tiles are refused; the other
  // player hears of the turns as counts only.
  const [host, guest] = await openRoom(client, 424242, 1);
  const layout = deal(host.seed, 1);
  const a = 1;
  const b = layout.findIndex((symbol) => symbol !== layout[0]) + 1;
  const partner = layout.indexOf(layout[0], 1) + 1;
  const other = [...layout.keys()].map((i) => i + 1).find((t) => t !== a && t !== b);
  const out = { layout_tiles: layout.length };
  out.first = await host.turn(a);
  out.miss = await host.turn(b);
  out.during_pause = await host.turn(other);
  out.out_of_range = [await host.turn(0), await host.turn(21), await host.turn("x")];
  await sleep(out.miss.pausedUntil - Date.now() - 250);
  out.late_in_pause = await host.turn(other); // still paused 750 ms after the miss
  await sleep(out.miss.pausedUntil - Date.now() + 20);
  out.still_showing = await host.turn(a); // the two of a miss stay up until the next turn
  out.after_pause = await host.turn(partner); // turns 1 and b back down first
  out.pair = await host.turn(a);
  out.face_up = await host.turn(partner);
  await sleep(200);
  out.guest_progress_messages = guest.progress;
  out.guest_last_progress = guest.lastProgress;
  await leave([host, guest]);
  return out;
}

const client = new Client(URL);
const started = performance.now();
let result;
if (MODE === "full") result = { full_speed: await full(client) };
else if (MODE === "human") result = { human_pace: await human(client) };
else if (MODE === "check") result = { check: await check(client) };
else throw new Error(`unknown --mode ${MODE}`);
result.seconds = Math.round((performance.now() - started) / 100) / 10;
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
