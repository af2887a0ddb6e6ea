/**
 * The shape of web/src, read from its import statements: no import circle, and no game's
 * folder imports another's. A game's folder (race/, concentration/, ... and audit/) imports its
 * own files, the kit (play/), the generated messages (gen/) and the base modules below; the kit
 * imports no game. The registries (games.ts, routes.ts, home.ts, main.ts) import the pages,
 * never the other way round.
 *
 * A plain scan rather than madge or dependency-cruiser: the sources are ES modules with static
 * `import ... from "..."` only, so a regex over the import clause reads them exactly, with
 * type-only imports included (a bundler drops those, and they couple folders too); it needs no
 * new package, and the tests below check the scanner and the checks themselves.
 */

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

/** The base modules every page may import (below the kit; none imports a page). */
const BASE = new Set(["app.ts", "connection.ts", "dom.ts", "ids.ts", "rpc.ts", "sentence.ts", "store.ts"]);
const KIT = "play";
const GEN = "gen";
const I18N = "i18n"; // the page's words (t()): below every page, it imports none

type Graph = Map<string, string[]>; // a file (relative to src, with /) -> the files it imports

const CLAUSE = String.raw`(?:type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)`;
const IMPORT = new RegExp(String.raw`(?:^|[;\n])\s*(?:import|export)\s+${CLAUSE}\s*from\s*["']([^"']+)["']|(?:^|[;\n])\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)`, "g");

/** The module specifiers a source imports (static, side-effect and dynamic imports). */
export function specifiers(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function rel(path: string): string {
  return relative(SRC, path).split(sep).join("/");
}

/** The import graph of web/src: relative specifiers resolved to files (a bare one is a package). */
function scan(): Graph {
  const graph: Graph = new Map();
  for (const file of files(SRC)) {
    const targets: string[] = [];
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const base = join(dirname(file), spec);
      const found = [`${base}.ts`, join(base, "index.ts"), base].find((p) => existsSync(p) && statSync(p).isFile());
      if (found === undefined) throw new Error(`${rel(file)} imports ${spec}, which is no file in web/src`);
      targets.push(rel(found));
    }
    graph.set(rel(file), targets);
  }
  return graph;
}

/** Every import circle, each once, as the files around it (the first repeated at the end). */
export function circles(graph: Graph): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const keys = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): void => {
    if (onPath.has(node)) {
      const cycle = path.slice(path.indexOf(node));
      const first = cycle.indexOf([...cycle].sort()[0]!);
      const key = [...cycle.slice(first), ...cycle.slice(0, first)].join(" -> ");
      if (!keys.has(key)) { keys.add(key); found.push([...cycle, node]); }
      return;
    }
    if (seen.has(node)) return;
    path.push(node);
    onPath.add(node);
    for (const next of graph.get(node) ?? []) visit(next);
    path.pop();
    onPath.delete(node);
    seen.add(node);
  };
  for (const node of [...graph.keys()].sort()) visit(node);
  return found;
}

/** The folder a file is in (`race`), or "" for a top-level module. */
function folder(file: string): string {
  const parts = posix.dirname(file).split("/");
  return parts[0] === "." ? "" : parts[0]!;
}

/** Imports that break the layering (see the module's doc): `from -> to`. */
export function crossings(graph: Graph): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    const home = folder(from);
    if (home === "" || home === GEN) continue; // the registries and base modules: the circle check covers them
    for (const to of targets) {
      const there = folder(to);
      const ok = there === GEN || there === KIT || there === I18N || (home !== KIT && there === home) || (there === "" && BASE.has(to));
      if (!ok) bad.push(`${from} -> ${to}`);
    }
  }
  return bad;
}

describe("the import graph of web/src", () => {
  const graph = scan();

  it("is read whole: every module, its imports resolved to files", () => {
    expect(graph.size).toBeGreaterThan(30);
    expect(graph.get("games.ts")).toEqual(expect.arrayContaining(["race/page.ts", "match-5/page.ts", "app.ts"]));
    expect(graph.get("race/page.ts")).toEqual(expect.arrayContaining(["play/follow.ts", "race/tracker.ts", "gen/match/v1/common_pb.ts", "dom.ts"]));
  });

  it("has no import circle", () => {
    expect(circles(graph).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("keeps each game's folder to itself, the kit and the base modules; the kit imports no game", () => {
    expect(crossings(graph)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  it("read every form of import, type-only and multi-line ones included", () => {
    const source = [
      'import type { App, Page } from "../app";',
      'import {\n  a,\n  type B,\n} from "./b";',
      'import * as c from "./c";',
      'import d, { e } from "./d";',
      'export { f } from "./f";',
      'export * from "./g";',
      'import "./h";',
      'const i = await import("./i");',
      'const text = "taken from the server"; // from "./not-an-import"',
    ].join("\n");
    expect(specifiers(source)).toEqual(["../app", "./b", "./c", "./d", "./f", "./g", "./h", "./i"]);
  });

  it("find a circle and a game reaching into another's folder", () => {
    const graph: Graph = new Map([
      ["home.ts", ["games.ts"]],
      ["games.ts", ["concentration/page.ts"]],
      ["concentration/page.ts", ["home.ts", "play/follow.ts", "dom.ts"]],
      ["match-cards/page.ts", ["concentration/shared.ts", "race/timing.ts", "play/seed.ts", "gen/x_pb.ts"]],
      ["concentration/shared.ts", []],
      ["race/timing.ts", []],
      ["play/follow.ts", ["rpc.ts", "race/timing.ts"]],
      ["play/seed.ts", ["dom.ts"]],
      ["dom.ts", []],
      ["rpc.ts", []],
    ]);
    expect(circles(graph).map((c) => c.join(" -> "))).toEqual(["concentration/page.ts -> home.ts -> games.ts -> concentration/page.ts"]);
    expect(crossings(graph)).toEqual([
      "concentration/page.ts -> home.ts",
      "match-cards/page.ts -> concentration/shared.ts",
      "match-cards/page.ts -> race/timing.ts",
      "play/follow.ts -> race/timing.ts",
    ]);
  });
});
