import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  checkLine,
  checkStatus,
  errorSentence,
  exportFileName,
  gameText,
  parseGameId,
  resultsText,
  retryAfter,
  seedText,
  selfCheckCommands,
  verdictText,
} from "../src/audit/format";

describe("the auditor's page's words", () => {
  it("takes a game id as the ledger does, tidied, and says what is wrong with another", () => {
    expect(parseGameId("  AbCd1234efgh ")).toEqual({ id: "abcd1234efgh" });
    expect(parseGameId("")).toEqual({ error: "Enter a game id: the table id the game was played on." });
    expect(parseGameId("short")).toHaveProperty("error", expect.stringContaining("8 to 32 lowercase letters and digits"));
    expect(parseGameId("not-a-game-id!")).toHaveProperty("error");
    expect(parseGameId("a".repeat(33))).toHaveProperty("error");
  });

  it("says verified, or FAILED with the failure's sentence", () => {
    expect(verdictText({ ok: true, verdict: "PASS game g1: every check holds" })).toBe("verified");
    expect(verdictText({ ok: false, verdict: "FAIL record 3 (leaf 17): inclusion proof does not match the checkpoint root" }))
      .toBe("FAILED: record 3 (leaf 17): inclusion proof does not match the checkpoint root");
    expect(verdictText({ ok: false, verdict: "" })).toBe("FAILED: a check did not hold");
  });

  it("prints each check as match-audit verify does", () => {
    const held = { name: "seed", passed: true, skipped: false, sentence: "SHA-256 of the revealed seed ..." };
    const skipped = { name: "consistency", passed: false, skipped: true, sentence: "no checkpoint kept from before (--since)" };
    const failed = { name: "inclusion", passed: false, skipped: false, sentence: "record 3 (leaf 17): inclusion proof does not match" };
    expect(checkLine(held)).toBe("ok   seed: SHA-256 of the revealed seed ...");
    expect(checkLine(skipped)).toBe("--   consistency: no checkpoint kept from before (--since)");
    expect(checkLine(failed)).toBe("FAIL record 3 (leaf 17): inclusion proof does not match");
    expect([held, skipped, failed].map(checkStatus)).toEqual(["passed", "skipped", "failed"]);
  });

  it("shows the game, the seed and the results, or why they are missing", () => {
    expect(gameText({ gameKind: "race", gameTitle: "Match, the race" })).toBe("Match, the race (race)");
    expect(gameText({ gameKind: "", gameTitle: "" })).toBe("—");
    expect(seedText("00ff")).toBe("00ff");
    expect(seedText("")).toMatch(/^not reached/);
    expect(resultsText("1. Ann: 3 pairs; 2. Bob: 1 pair")).toBe("1. Ann: 3 pairs; 2. Bob: 1 pair");
    expect(resultsText("")).toMatch(/^none/);
  });

  it("names the export and the commands to check it on one's own machine", () => {
    expect(exportFileName("abcd1234")).toBe("match-audit-abcd1234.jsonl");
    expect(selfCheckCommands("abcd1234")).toEqual([
      "match-audit verify abcd1234 --key ledger.vkey",
      "match-audit verify --offline match-audit-abcd1234.jsonl --key ledger.vkey",
    ]);
  });

  it("gives match-audit the ledger's address when it is not match-audit's default", () => {
    expect(selfCheckCommands("abcd1234", "127.0.0.1:50052")[0]).toBe("match-audit verify abcd1234 --key ledger.vkey");
    expect(selfCheckCommands("abcd1234", "127.0.0.1:41234")).toEqual([
      "match-audit --addr 127.0.0.1:41234 verify abcd1234 --key ledger.vkey",
      "match-audit verify --offline match-audit-abcd1234.jsonl --key ledger.vkey",
    ]);
  });

  it("says an error in one sentence, and reads how long a rate limit asks to wait", () => {
    expect(errorSentence(new ConnectError("the ledger has no game abcd1234", Code.NotFound), "abcd1234"))
      .toBe("The ledger has no game abcd1234: check the id (it is the table's id).");
    expect(errorSentence(new ConnectError("the game is still being played; its records are published when it ends",
      Code.FailedPrecondition), "abcd1234"))
      .toBe("Game abcd1234 cannot be checked yet: the game is still being played; its records are published when it ends.");
    expect(errorSentence(new ConnectError("Failed to fetch", Code.Unknown), "abcd1234"))
      .toBe("The ledger is not answering: try again in a moment.");
    expect(errorSentence(new Error("no auditUrl"), "abcd1234")).toBe("no auditUrl");

    const limited = new ConnectError("too many audit requests", Code.ResourceExhausted, { "retry-after-ms": "250" });
    expect(retryAfter(limited)).toBe(250);
    expect(retryAfter(new ConnectError("x", Code.NotFound, { "retry-after-ms": "250" }))).toBeNull();
    expect(retryAfter(new Error("x"))).toBeNull();
  });
});
