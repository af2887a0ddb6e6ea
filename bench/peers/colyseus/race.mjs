// The race's turn, for the peer: a 4x5 board dealt from a seed, one player's board and its turn
// rules (docs/rules-race.md, "One board"). Shared by the room (server.mjs) and the driver
// (driver.mjs), which knows the deal as match_bench's players do.

export const TILES = 20; // 1..20, row-major, 4 across, 5 down
export const PAIRS = TILES / 2;
export const SYMBOLS = 25; // 0..24
export const MAX_TURNS = 80;
export const MISS_PAUSE_MS = 1000;

// mulberry32: a small deterministic PRNG (any deterministic shuffle will do here; the race's own
// deal algorithm is not needed).
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(items, random) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** The layout of board `board` of the game dealt from `seed`: layout[tile - 1] = symbol. */
export function deal(seed, board) {
  const random = prng((Math.imul(seed >>> 0, 2654435761) ^ board) >>> 0);
  const symbols = shuffle([...Array(SYMBOLS).keys()], random).slice(0, PAIRS);
  return shuffle([...symbols, ...symbols], random);
}

/** The tiles in an order that only ever pairs (a1, b1, a2, b2, ...), as match_bench's players. */
export function pairsOf(layout) {
  const where = new Map();
  layout.forEach((symbol, i) => {
    if (!where.has(symbol)) where.set(symbol, []);
    where.get(symbol).push(i + 1);
  });
  return [...where.values()].flat();
}

export class Refused extends Error {
  constructor(code) {
    super(code);
    this.code = code;
  }
}

/** One player's board: what is found, what is showing, the pause after a miss, the counts. */
export class PlayerBoard {
  constructor(layout) {
    this.layout = layout;
    this.found = new Set();
    this.showing = []; // the first tile of an attempt, or the two of a miss until the next turn
    this.pausedUntil = 0;
    this.pairs = 0;
    this.turns = 0;
    this.done = false; // cleared or out of turns
  }

  /** Judge and apply one turn at `now` (ms); throws Refused before changing anything. */
  turn(tile, now) {
    if (!Number.isInteger(tile) || tile < 1 || tile > TILES) throw new Refused("tile_out_of_range");
    if (this.done) throw new Refused("board_over");
    if (now < this.pausedUntil) throw new Refused("paused"); // +1000 exactly is accepted
    if (this.found.has(tile) || this.showing.includes(tile)) throw new Refused("tile_face_up");
    const turnedDown = this.showing.length === 2 ? this.showing : [];
    if (turnedDown.length) this.showing = []; // the two of a miss go back down first
    this.turns += 1;
    const symbol = this.layout[tile - 1];
    let result = "flipped";
    if (this.showing.length === 1) {
      const first = this.showing[0];
      if (this.layout[first - 1] === symbol) {
        this.found.add(first).add(tile);
        this.showing = [];
        this.pairs += 1;
        result = "pair";
      } else {
        this.showing = [first, tile];
        this.pausedUntil = now + MISS_PAUSE_MS;
        result = "miss";
      }
    } else {
      this.showing = [tile];
    }
    if (this.pairs === PAIRS || this.turns >= MAX_TURNS) this.done = true;
    return { tile, symbol, result, turnedDown, pausedUntil: this.pausedUntil };
  }
}
