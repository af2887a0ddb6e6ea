import { describe, expect, it } from "vitest";
import { ServerClock } from "../src/play/clock";
import { lostText } from "../src/play/follow";
import { chooseName, guestName, NAME_MAX_CHARS, tidyName } from "../src/play/name";
import { FormProblem, submitting } from "../src/play/setup";
import { clockText, hex, listText } from "../src/play/words";
import { Code, ConnectError } from "@connectrpc/connect";
import { MemoryStorage, Store } from "../src/store";

const T0 = 1_000_000;

describe("the name a player sits under", () => {
  it("is what was typed, trimmed, each run of white space one space", () => {
    expect(tidyName("  Ann  ")).toBe("Ann");
    expect(tidyName("Ann \t  Lee\n")).toBe("Ann Lee");
    expect(tidyName(" \t ")).toBe("");
  });

  it("is never cut: the lobby counts characters and refuses a long name itself", () => {
    // 33 letters: the lobby says "display_name must be 1 to 32 characters, got 33", the form shows it.
    expect(tidyName("a".repeat(33))).toBe("a".repeat(33));
    // 20 emoji are 20 characters (the lobby takes them) but 40 UTF-16 units: a cut at 32 units
    // would keep 16 of them, and a cut at 31 half an emoji the lobby refuses.
    const emoji = "🐟".repeat(20);
    expect(tidyName(emoji)).toBe(emoji);
    expect(NAME_MAX_CHARS).toBe(32); // services/lobby/names.py MAX_NAME_CHARS
    const store = new Store(new MemoryStorage());
    expect(chooseName(store, ` ${"a".repeat(33)} `)).toBe("a".repeat(33)); // Number Match's page cut it to 32
    expect(chooseName(store, emoji)).toBe(emoji);
  });

  it("is a neutral Guest name when none was typed, kept for next time", () => {
    expect(guestName(() => 0)).toBe("Guest 100");
    expect(guestName(() => 0.9999)).toBe("Guest 999");
    const store = new Store(new MemoryStorage());
    expect(chooseName(store, "   ", () => 0.5)).toBe("Guest 550");
    expect(store.displayName()).toBe("Guest 550");
    expect(chooseName(store, " Ann  Lee ")).toBe("Ann Lee");
    expect(store.displayName()).toBe("Ann Lee");
  });
});

describe("ServerClock", () => {
  it("is the latest server time plus the local time elapsed since it arrived, never ahead", () => {
    let local = 500;
    const clock = new ServerClock(() => local);
    expect(clock.synced).toBe(false);
    expect(clock.now()).toBe(0);
    clock.observe(T0); // arrived at local 500
    expect(clock.synced).toBe(true);
    local = 1_700;
    expect(clock.now()).toBe(T0 + 1_200);
    // An older time that arrives late (a replayed event, a slow message) never pulls it back...
    clock.observe(T0 + 100);
    expect(clock.now()).toBe(T0 + 1_200);
    // ...and a newer one that shows we were behind moves it forward.
    clock.observe(T0 + 1_500);
    expect(clock.now()).toBe(T0 + 1_500);
    clock.observe(0);
    expect(clock.now()).toBe(T0 + 1_500);
  });
});

describe("small words", () => {
  it("times, lists and bytes", () => {
    expect([clockText(65_000), clockText(-5), clockText(600_999)]).toEqual(["1:05", "0:00", "10:00"]);
    expect([listText([]), listText([1]), listText([1, 2]), listText([1, 2, 3])]).toEqual(["", "1", "1 and 2", "1, 2 and 3"]);
    expect([hex(null), hex(new Uint8Array([0, 15, 255]))]).toEqual(["", "000fff"]);
    expect([lostText(1), lostText(1_300), lostText(2_000)]).toEqual([
      "Connection lost; trying again in 1 s", "Connection lost; trying again in 2 s", "Connection lost; trying again in 2 s"]);
  });
});

describe("a setup form's submit", () => {
  async function submit(act: () => Promise<void>): Promise<{ error: string; said: string[]; during: boolean[]; after: boolean[]; prevented: boolean }> {
    const said: string[] = [];
    const error = { textContent: "An old refusal." } as HTMLElement;
    const buttons = [{ disabled: false }, { disabled: false }] as HTMLButtonElement[];
    let during: boolean[] = [];
    let prevented = false;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => { done = resolve; });
    const handler = submitting({ announce: (t) => said.push(t) }, error, () => buttons, async () => {
      during = buttons.map((b) => b.disabled);
      try { await act(); } finally { setTimeout(done, 0); }
    });
    handler({ preventDefault: () => { prevented = true; } } as Event);
    await finished;
    return { error: error.textContent ?? "", said, during, after: buttons.map((b) => b.disabled), prevented };
  }

  it("holds the buttons while it runs and empties the old refusal", async () => {
    const r = await submit(async () => {});
    expect(r).toEqual({ error: "", said: [], during: [true, true], after: [false, false], prevented: true });
  });

  it("shows the server's refusal as a sentence and says it", async () => {
    const r = await submit(async () => { throw new ConnectError("that name reads as a bot's name; choose another name", Code.InvalidArgument); });
    expect(r.error).toBe("That name reads as a bot's name; choose another name.");
    expect(r.said).toEqual([r.error]);
    expect(r.after).toEqual([false, false]);
  });

  it("says a problem found before asking the server as it is", async () => {
    const r = await submit(async () => { throw new FormProblem("Type the invite code a friend gave you"); });
    expect([r.error, r.said]).toEqual(["Type the invite code a friend gave you", ["Type the invite code a friend gave you"]]);
  });
});
