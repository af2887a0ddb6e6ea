/**
 * The auditor's page's words: pure functions from the ledger's VerifyGame answer (or its error)
 * to the text the page shows. No DOM, no network: web/test/audit.test.ts checks them.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { t } from "../i18n";

/** A game id as the ledger takes it: 8 to 32 lowercase letters and digits. */
export const GAME_ID = /^[a-z0-9]{8,32}$/;

/** What the page knows of a check (VerifyGameResponse.Check). */
export interface CheckLike {
  name: string;
  passed: boolean;
  skipped: boolean;
  sentence: string;
}

/** What the page knows of a part of the timeline (VerifyGameResponse.Board). */
export interface BoardLike {
  number: number;
  title: string;
  lines: string[];
}

/** What the page knows of the answer (VerifyGameResponse). */
export interface AnswerLike {
  ok: boolean;
  verdict: string;
  checks: CheckLike[];
  gameKind: string;
  gameTitle: string;
  seed: string;
  results: string;
}

/**
 * The id typed or routed, tidied (spaces cut, lowercased); or a sentence saying what is wrong
 * with it.
 */
export function parseGameId(typed: string): { id: string } | { error: string } {
  const id = typed.trim().toLowerCase();
  if (id === "") return { error: t("audit.enterId") };
  if (!GAME_ID.test(id)) return { error: t("audit.notId", { typed: typed.trim() }) };
  return { id };
}

/** The verdict: `verified`, or `FAILED: <what failed>` (the verdict's sentence, without FAIL). */
export function verdictText(answer: Pick<AnswerLike, "ok" | "verdict">): string {
  if (answer.ok) return t("audit.verified");
  const why = answer.verdict.replace(/^FAIL\s+/, "").trim();
  return t("audit.failed", { why: why || t("audit.checkFailed") });
}

/** A check as `match-audit verify` prints it: `ok   <name>: <sentence>`, `--   ...`, `FAIL ...`. */
export function checkLine(check: CheckLike): string {
  if (check.passed) return `ok   ${check.name}: ${check.sentence}`;
  if (check.skipped) return `--   ${check.name}: ${check.sentence}`;
  return `FAIL ${check.sentence}`;
}

/** The status word of a check, for its badge and for a screen reader. */
export function checkStatus(check: CheckLike): "passed" | "skipped" | "failed" {
  return check.passed ? "passed" : check.skipped ? "skipped" : "failed";
}

/** The rules' slug of each game this page knows, to its title's key (i18n/<lang>/games.ts). */
const TITLE_KEYS: Readonly<Record<string, string>> = {
  race: "games.race.title", concentration: "games.concentration.title", match_cards: "games.matchCards.title",
  number_match: "games.numberMatch.title", match_five: "games.match5.title",
};

/** The game line: `Match, the race (race)`, or a dash when the checks stopped before it. */
export function gameText(answer: Pick<AnswerLike, "gameKind" | "gameTitle">): string {
  if (!answer.gameKind) return "—";
  const key = TITLE_KEYS[answer.gameKind];
  const title = key ? t(key) : answer.gameTitle; // the server's (English) title for a game this page does not know
  return title ? `${title} (${answer.gameKind})` : answer.gameKind;
}

/** The published seed (hex), or a sentence when it was not reached. */
export function seedText(seed: string): string {
  return seed || t("audit.seedNotReached");
}

/** The results and standings, or a sentence when the rerun did not hold. */
export function resultsText(results: string): string {
  return results || t("audit.noResults");
}

/** The name the evidence is saved under. */
export function exportFileName(gameId: string): string {
  return `match-audit-${gameId}.jsonl`;
}

/** Where match-audit dials the ledger when given no `--addr`. */
export const DEFAULT_AUDIT_ADDR = "127.0.0.1:50052";

/** The commands an independent auditor runs on their own machine, as printed: `--addr` when
 * the ledger's gRPC address (the server's `auditAddr`) is not match-audit's default. */
export function selfCheckCommands(gameId: string, auditAddr = ""): string[] {
  const addr = auditAddr !== "" && auditAddr !== DEFAULT_AUDIT_ADDR ? ` --addr ${auditAddr}` : "";
  return [
    `match-audit${addr} verify ${gameId} --key ledger.vkey`,
    `match-audit verify --offline ${exportFileName(gameId)} --key ledger.vkey`,
  ];
}

/** The `retry-after-ms` a rate-limited answer carries, in ms, or null. */
export function retryAfter(err: unknown): number | null {
  if (!(err instanceof ConnectError) || err.code !== Code.ResourceExhausted) return null;
  const value = err.metadata.get("retry-after-ms");
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** An error as one sentence for the page. */
export function errorSentence(err: unknown, gameId: string): string {
  if (err instanceof ConnectError) {
    const said = err.rawMessage.trim();
    switch (err.code) {
      case Code.NotFound:
        return t("audit.err.notFound", { id: gameId });
      case Code.FailedPrecondition:
        return t("audit.err.notYet", { id: gameId, said: said || t("audit.notOver") });
      case Code.InvalidArgument:
        return t("audit.err.refused", { said });
      case Code.ResourceExhausted:
        return t("audit.err.busy", { said: said || t("audit.tryAgain") });
      case Code.Unavailable:
      case Code.Unknown:
        if (!said || /fetch|network|failed to/i.test(said)) return t("audit.err.silent");
        return t("audit.err.couldNot", { said });
      case Code.DeadlineExceeded:
        return t("audit.err.slow");
      default:
        return t("audit.err.other", { said: said || (Code[err.code] ?? "") });
    }
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
