// An independent implementation of the Match deal, match-deal-v1, written from docs/dealing.md.
// Plain JavaScript for Node 20: node:crypto and node:fs only, no npm packages.
//
//   node docs/vectors/deal_v1.mjs docs/vectors/match-deal-v1.json
//
// Prints one line per vector and a summary; exits 0 only if every vector is reproduced.

import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";

const VERSION = "match-deal-v1";
const SEED_BYTES = 32;
const SYMBOLS = 25;
const PAIRS = 10;
const TILES = 20;
const STRENGTHS = ["weak", "medium", "strong"];
const TWO_32 = 2 ** 32; // exact as a double

// The byte stream of one label: block i = HMAC-SHA256(seed, "match-deal-v1/" + label + "/" + u32be(i)).
class Stream {
  constructor(seed, label) {
    this.seed = seed;
    this.prefix = Buffer.from(`${VERSION}/${label}/`, "ascii");
    this.counter = 0;
    this.buffer = Buffer.alloc(0);
  }

  read(size) {
    while (this.buffer.length < size) {
      if (this.counter >= TWO_32) throw new Error("stream exhausted");
      const counter = Buffer.alloc(4);
      counter.writeUInt32BE(this.counter, 0);
      const block = createHmac("sha256", this.seed)
        .update(Buffer.concat([this.prefix, counter]))
        .digest();
      this.buffer = Buffer.concat([this.buffer, block]);
      this.counter += 1;
    }
    const out = this.buffer.subarray(0, size);
    this.buffer = this.buffer.subarray(size);
    return out;
  }
}

// An unbiased integer in [0, n) for 1 <= n <= 2^32, by rejection sampling.
function uniform(stream, n) {
  if (!Number.isInteger(n) || n < 1 || n > TWO_32) throw new Error(`bad n ${n}`);
  const limit = TWO_32 - (TWO_32 % n);
  for (;;) {
    const x = stream.read(4).readUInt32BE(0); // unsigned
    if (x < limit) return x % n;
  }
}

function dealBoard(seed, b) {
  const s = new Stream(seed, `board/${b}`);
  const sym = Array.from({ length: SYMBOLS }, (_, k) => k);
  for (let i = 0; i < PAIRS; i++) {
    const j = i + uniform(s, SYMBOLS - i);
    [sym[i], sym[j]] = [sym[j], sym[i]];
  }
  const tiles = [];
  for (let k = 0; k < PAIRS; k++) tiles.push(sym[k], sym[k]);
  for (let i = TILES - 1; i >= 1; i--) {
    const j = uniform(s, i + 1);
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return tiles;
}

function deal(seed) {
  if (!Buffer.isBuffer(seed) || seed.length !== SEED_BYTES) {
    throw new Error(`a seed must be exactly ${SEED_BYTES} bytes`);
  }
  return {
    boards: [1, 2, 3].map((b) => dealBoard(seed, b)),
    botStrength: STRENGTHS[uniform(new Stream(seed, "bot-strength"), STRENGTHS.length)],
  };
}

function commitment(seed) {
  return createHash("sha256").update(seed).digest("hex");
}

function sameBoards(a, b) {
  return (
    Array.isArray(b) &&
    a.length === b.length &&
    a.every((board, k) => board.length === b[k].length && board.every((v, t) => v === b[k][t]))
  );
}

function main() {
  const path = process.argv[2];
  if (!path) {
    console.error("usage: node deal_v1.mjs <path to match-deal-v1.json>");
    return 2;
  }
  const doc = JSON.parse(readFileSync(path, "utf8"));
  if (doc.version !== VERSION) {
    console.error(`FAIL: vectors file is for ${JSON.stringify(doc.version)}, not ${VERSION}`);
    return 1;
  }
  const vectors = doc.vectors ?? [];
  let passed = 0;
  vectors.forEach((v, k) => {
    const problems = [];
    try {
      if (!/^[0-9a-f]{64}$/.test(v.seed_hex)) throw new Error("seed_hex is not 64 lowercase hex");
      const seed = Buffer.from(v.seed_hex, "hex");
      const d = deal(seed);
      if (commitment(seed) !== v.commitment) problems.push("commitment differs");
      if (!sameBoards(d.boards, v.boards)) problems.push("boards differ");
      if (d.botStrength !== v.bot_strength) {
        problems.push(`bot_strength ${d.botStrength} != ${v.bot_strength}`);
      }
    } catch (err) {
      problems.push(`error: ${err.message}`);
    }
    const tag = `vector ${k + 1} seed ${String(v.seed_hex).slice(0, 16)}...`;
    if (problems.length === 0) {
      passed += 1;
      console.log(`ok    ${tag} (${v.bot_strength})`);
    } else {
      console.log(`FAIL  ${tag}: ${problems.join("; ")}`);
    }
  });
  const ok = vectors.length > 0 && passed === vectors.length;
  console.log(`${ok ? "PASS" : "FAIL"}: ${passed}/${vectors.length} vectors reproduced (${VERSION})`);
  return ok ? 0 : 1;
}

process.exitCode = main();
