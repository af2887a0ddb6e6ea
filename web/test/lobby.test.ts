import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ConcentrationSettings_Matching, ConcentrationSettings_Pictures, ConcentrationSettingsSchema } from "../src/gen/match/v1/concentration_pb";
import { RematchSchema, Table_SeatSchema, Table_Status, TableSchema } from "../src/gen/match/v1/lobby_pb";
import { MatchCardsSettings_Mode, MatchCardsSettingsSchema } from "../src/gen/match/v1/match_cards_pb";
import { MatchFiveSettingsSchema } from "../src/gen/match/v1/match_five_pb";
import { RaceSettingsSchema } from "../src/gen/match/v1/race_pb";
import { missingKeys } from "../src/i18n";
import { EN } from "../src/i18n/en";
import { seatedNames, seatsText, settingsWords } from "../src/lobby/words";
import { Code, ConnectError } from "@connectrpc/connect";
import { askers, endsPolling, FAST_FOR_MS, POLL_MS, pollDelayMs, rematchable, SLOW_POLL_MS } from "../src/play/rematch";
import { sentence } from "../src/sentence";

const seat = (n: number, name: string, isBot = false) =>
  create(Table_SeatSchema, { seat: n, playerId: `p${n}`, displayName: name, isBot });

describe("a listed table in words", () => {
  it("names who sits there, a bot marked, and the seats taken and free", () => {
    const table = create(TableSchema, { seats: 4, taken: [seat(1, "Ann"), seat(2, "Bot 3", true)] });
    expect(seatedNames(table)).toBe("Ann, Bot 3 (bot)");
    expect(seatsText(table)).toBe("2 of 4 seats taken, 2 free");
    expect(seatedNames(create(TableSchema, { seats: 2 }))).toBe("nobody yet");
  });

  it("says every game's settings", () => {
    const race = create(TableSchema, { settings: { case: "race", value: create(RaceSettingsSchema, { readyWindowMs: 30_000n, hintsPerBoard: 1 }) } });
    expect(settingsWords(race)).toBe("30 s to press Ready, 1 hint a board");
    const noHints = create(TableSchema, { settings: { case: "race", value: create(RaceSettingsSchema, { readyWindowMs: 45_000n, hintsPerBoard: 0 }) } });
    expect(settingsWords(noHints)).toBe("45 s to press Ready, no hints");
    const emoji = create(TableSchema, { settings: { case: "concentration", value: create(ConcentrationSettingsSchema, { pictures: ConcentrationSettings_Pictures.EMOJI, cards: 24 }) } });
    expect(settingsWords(emoji)).toBe("24 emoji cards, 2 minutes to flip");
    const cards = create(TableSchema, { settings: { case: "concentration", value: create(ConcentrationSettingsSchema, {
      pictures: ConcentrationSettings_Pictures.PLAYING_CARDS, cards: 52, jokers: true, matching: ConcentrationSettings_Matching.RANK, turnLimitMs: 30_000n }) } });
    expect(settingsWords(cards)).toBe("54 playing cards with two jokers, pairs of same rank, 30 s to flip");
    const mc = create(TableSchema, { settings: { case: "matchCards", value: create(MatchCardsSettingsSchema, { mode: MatchCardsSettings_Mode.TRIPLES, cards: 18 }) } });
    expect(settingsWords(mc)).toBe("triples, 18 cards, medium");
    const m5 = create(TableSchema, { settings: { case: "matchFive", value: create(MatchFiveSettingsSchema, { writingSeconds: 120, voteSeconds: 30 }) } });
    expect(settingsWords(m5)).toBe("120 s to write, 30 s to vote");
    expect(settingsWords(create(TableSchema, {}))).toBe("the usual settings");
  });
});

describe("the rematch block", () => {
  it("is offered only to two or more people with no bot", () => {
    expect(rematchable(create(TableSchema, { taken: [seat(1, "Ann"), seat(2, "Bob")] }))).toBe(true);
    expect(rematchable(create(TableSchema, { taken: [seat(1, "Ann")] }))).toBe(false);
    expect(rematchable(create(TableSchema, { taken: [seat(1, "Ann"), seat(2, "Bot 1", true)] }))).toBe(false);
  });

  it("names who asked, the reader left out", () => {
    const table = create(TableSchema, { taken: [seat(1, "Ann"), seat(2, "Bob"), seat(3, "Cy")] });
    const rematch = create(RematchSchema, { tableId: "t2", accepted: ["p1", "p2"], status: Table_Status.WAITING });
    expect(askers(table, rematch, "p2")).toEqual(["Ann"]);
    expect(askers(table, rematch, "p3")).toEqual(["Ann", "Bob"]);
  });

  it("asks every 2 s while a rematch is likely, then ever less often, up to every 30 s", () => {
    expect(pollDelayMs(0, POLL_MS, false)).toBe(2_000);
    expect(pollDelayMs(FAST_FOR_MS - 1, POLL_MS, false)).toBe(2_000);
    const waits: number[] = [];
    let last = POLL_MS;
    for (let since = FAST_FOR_MS; waits.length < 6; since += last) {
      last = pollDelayMs(since, last, false);
      waits.push(last);
    }
    expect(waits).toEqual([4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(pollDelayMs(3_600_000, SLOW_POLL_MS, true)).toBe(2_000); // an offer waits: its players come quickly
    // An hour's page: ~150 asks, not 1,800.
    let asks = 0;
    for (let since = 0, wait = POLL_MS; since < 3_600_000; since += wait, asks++) wait = pollDelayMs(since, wait, false);
    expect(asks).toBeLessThan(200);
  });

  it("stops asking once the lobby let the table go, or the seat is not good there", () => {
    expect(endsPolling(new ConnectError("This game finished a while ago", Code.NotFound))).toBe(true);
    expect(endsPolling(new ConnectError("no seat", Code.Unauthenticated))).toBe(true);
    expect(endsPolling(new ConnectError("not yours", Code.PermissionDenied))).toBe(true);
    expect(endsPolling(new ConnectError("try again", Code.Unavailable))).toBe(false);
    expect(endsPolling(new TypeError("Failed to fetch"))).toBe(false);
  });
});

describe("the lobby's English", () => {
  it("is whole sentences where it is a sentence, and every key is in the catalog", () => {
    for (const key of ["lobby.intro", "lobby.codeMissing", "lobby.rematch.invite", "lobby.rematch.started", "lobby.rematch.expired"]) {
      const text = EN[key]!;
      expect(sentence(text)).toBe(text);
    }
    expect(missingKeys()).toEqual([]);
  });
});
