import { describe, expect, it } from "vitest";
import { move, moveForKey, position } from "../src/race/grid";

describe("keyboard navigation over the 4 x 5 board", () => {
  it("maps keys to moves", () => {
    expect(moveForKey("ArrowLeft")).toBe("left");
    expect(moveForKey("ArrowDown")).toBe("down");
    expect(moveForKey("Home")).toBe("rowStart");
    expect(moveForKey("Home", true)).toBe("home");
    expect(moveForKey("End", true)).toBe("end");
    expect(moveForKey("Enter")).toBeNull();
    expect(moveForKey("r")).toBeNull();
  });

  it("moves along rows and runs on to the next row", () => {
    expect(move(1, "right")).toBe(2);
    expect(move(4, "right")).toBe(5);
    expect(move(5, "left")).toBe(4);
    expect(move(1, "left")).toBe(1);
    expect(move(20, "right")).toBe(20);
  });

  it("moves up and down a column and stops at the edges", () => {
    expect(move(1, "down")).toBe(5);
    expect(move(7, "up")).toBe(3);
    expect(move(3, "up")).toBe(3);
    expect(move(18, "down")).toBe(18);
    expect(move(16, "down")).toBe(20);
  });

  it("goes to a row's ends and the board's", () => {
    expect(move(7, "rowStart")).toBe(5);
    expect(move(7, "rowEnd")).toBe(8);
    expect(move(13, "home")).toBe(1);
    expect(move(2, "end")).toBe(20);
  });

  it("names a tile's row and column", () => {
    expect(position(1)).toEqual({ row: 1, column: 1 });
    expect(position(7)).toEqual({ row: 2, column: 3 });
    expect(position(20)).toEqual({ row: 5, column: 4 });
  });

  it("reaches every tile from every tile", () => {
    for (let from = 1; from <= 20; from++) {
      const seen = new Set([from]);
      const todo = [from];
      while (todo.length) {
        const t = todo.pop()!;
        for (const m of ["left", "right", "up", "down"] as const) {
          const n = move(t, m);
          expect(n).toBeGreaterThanOrEqual(1);
          expect(n).toBeLessThanOrEqual(20);
          if (!seen.has(n)) { seen.add(n); todo.push(n); }
        }
      }
      expect(seen.size).toBe(20);
    }
  });
});
