/**
 * The auditor's page (`#/audit/<game_id>`): enter a game id; the ledger runs the checks of
 * `match-audit verify` on its own evidence (VerifyGame, on the ledger's web edge, whose URL is
 * `auditUrl` in `/config.json`, or this page's own origin when that is empty) and the page shows the verdict, each check, the seed, the
 * results and the game replayed board by board. It also offers the evidence the ledger checked
 * (`match-audit export` format) to check on one's own machine with `match-audit verify
 * --offline`: the ledger vouching for itself is a convenience, not an independent audit.
 */

import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { h, fill } from "../dom";
import { LedgerAuditService, type VerifyGameResponse } from "../gen/match/v1/audit_pb";
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
} from "./format";
import { t } from "../i18n";

const VERIFY_TIMEOUT_MS = 60_000;
const MAX_WAIT_MS = 10_000; // a rate-limited check is sent again once, after the wait asked

let ledger: Promise<Client<typeof LedgerAuditService>> | null = null;
/** The ledger's gRPC address for match-audit (`auditAddr` in /config.json; "": its default). */
let auditAddr = "";

/** The ledger's audit client, at the `auditUrl` the page's server gives in /config.json. */
function ledgerClient(): Promise<Client<typeof LedgerAuditService>> {
  ledger ??= (async () => {
    const answer = await fetch("/config.json", { cache: "no-cache" });
    if (!answer.ok) throw new Error(t("audit.noConfig", { status: answer.status }));
    const config = (await answer.json()) as { auditUrl?: unknown; auditAddr?: unknown };
    auditAddr = typeof config.auditAddr === "string" ? config.auditAddr : "";
    // No auditUrl: the page's own host routes the audit API to the ledger (docs/operations.md).
    const baseUrl = typeof config.auditUrl === "string" && config.auditUrl !== "" ? config.auditUrl : location.origin;
    return createClient(LedgerAuditService, createConnectTransport({ baseUrl }));
  })();
  ledger.catch(() => {
    ledger = null; // ask again next time
  });
  return ledger;
}

async function verifyGame(id: string): Promise<VerifyGameResponse> {
  const client = await ledgerClient();
  try {
    return await client.verifyGame({ tableId: id }, { timeoutMs: VERIFY_TIMEOUT_MS });
  } catch (err) {
    const wait = retryAfter(err);
    if (wait === null || wait > MAX_WAIT_MS) throw err;
    await new Promise((resolve) => setTimeout(resolve, wait));
    return await client.verifyGame({ tableId: id }, { timeoutMs: VERIFY_TIMEOUT_MS });
  }
}

/** Draw the page into `root`; with `gameId`, check that game at once. Resolves when drawn (and
 * that first check has answered). */
export async function mountAudit(root: HTMLElement, gameId: string | null): Promise<void> {
  const input = h("input", {
    id: "audit-game-id", name: "game", type: "text", required: true, autocomplete: "off",
    spellcheck: "false", autocapitalize: "none", maxlength: 64,
    "aria-describedby": "audit-game-id-help", value: gameId ?? "",
  });
  const button = h("button", { id: "audit-verify", type: "submit" }, t("audit.verify"));
  const verdict = h("p", { id: "audit-verdict", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  // The ledger's own words (match-audit's lines, its replay), as it prints them: translate="no".
  const checks = h("ol", { id: "audit-checks", class: "audit-checks", translate: "no" });
  const game = h("dd", { id: "audit-game" });
  const seed = h("dd", { id: "audit-seed" }, h("code", {}));
  const results = h("dd", { id: "audit-results", translate: "no" });
  const evidence = h("div", { id: "audit-evidence" });
  const boards = h("div", { id: "audit-boards", translate: "no" });
  const answerPart = h("div", { id: "audit-answer", hidden: true },
    h("section", { "aria-labelledby": "audit-checks-title" },
      h("h2", { id: "audit-checks-title" }, t("audit.checks")), checks),
    h("section", { "aria-labelledby": "audit-game-title" },
      h("h2", { id: "audit-game-title" }, t("audit.theGame")),
      h("dl", { class: "audit-facts" },
        h("dt", {}, t("audit.game")), game,
        h("dt", {}, t("audit.seed")), seed,
        h("dt", {}, t("audit.results")), results)),
    h("section", { "aria-labelledby": "audit-evidence-title" },
      h("h2", { id: "audit-evidence-title" }, t("audit.yourself")), evidence),
    h("section", { "aria-labelledby": "audit-replay-title" },
      h("h2", { id: "audit-replay-title" }, t("audit.replay")), boards));
  const form = h("form", { id: "audit-form", class: "audit-form", novalidate: true },
    h("label", { for: "audit-game-id" }, t("audit.gameId")), " ", input, " ", button,
    h("p", { id: "audit-game-id-help", class: "muted" },
      t("audit.idHelp")));

  fill(root, h("section", { class: "panel audit" },
    h("h1", {}, t("common.checkGameTitle")),
    h("p", {}, t("audit.intro1a"), " ", h("code", {}, "match-audit verify"), t("audit.intro1b")),
    h("p", {}, t("audit.intro2a"), " ", h("code", {}, "match-audit verify"), " ", t("audit.intro2b")),
    form, verdict, answerPart));

  let asked = 0; // the latest check asked: an older one's answer is dropped
  let exportUrl: string | null = null;

  function showAnswer(id: string, answer: VerifyGameResponse): void {
    verdict.textContent = verdictText(answer);
    verdict.className = answer.ok ? "audit-verdict ok" : "audit-verdict failed";
    fill(checks, ...answer.checks.map((check) =>
      h("li", { class: `audit-check ${checkStatus(check)}`, "data-check": check.name, "data-status": checkStatus(check) },
        h("code", { class: "audit-check-line" }, checkLine(check)))));
    game.textContent = gameText(answer);
    fill(seed, answer.seed ? h("code", {}, seedText(answer.seed)) : seedText(""));
    results.textContent = resultsText(answer.results);

    if (exportUrl !== null) URL.revokeObjectURL(exportUrl);
    exportUrl = answer.export ? URL.createObjectURL(new Blob([answer.export], { type: "application/jsonl" })) : null;
    const [online, offline] = selfCheckCommands(id, auditAddr);
    fill(evidence,
      h("p", {}, `${t("audit.ownKey")} `, h("code", {}, answer.verifierKey || t("audit.none")),
        t("audit.compare")),
      h("pre", {}, `${online}\n${offline}`),
      exportUrl !== null
        ? h("p", {}, h("a", { id: "audit-export", href: exportUrl, download: exportFileName(id) },
          t("audit.download")), ` (${exportFileName(id)}, ${t("audit.for")} `, h("code", {}, "match-audit verify --offline"), ")")
        : null);

    fill(boards,
      answer.heading.length ? h("p", { class: "muted" }, answer.heading.join(" · ")) : null,
      ...answer.boards.map((board, i) => {
        const titleId = `audit-board-${i}`;
        return h("section", { class: "audit-board", "data-board": board.number, "aria-labelledby": titleId },
          h("h3", { id: titleId }, board.title),
          h("ol", { class: "audit-lines" },
            ...board.lines.map((line) => h("li", {}, line))));
      }));
    answerPart.hidden = false;
  }

  async function check(typed: string): Promise<void> {
    const parsed = parseGameId(typed);
    const ticket = ++asked;
    if ("error" in parsed) {
      answerPart.hidden = true;
      verdict.className = "audit-verdict error";
      verdict.textContent = parsed.error;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    const id = parsed.id;
    input.removeAttribute("aria-invalid");
    input.value = id;
    const hash = `#/audit/${id}`;
    if (location.hash !== hash) history.pushState(null, "", hash); // no hashchange: no remount
    document.title = `${t("audit.checkGameN", { id })} · Match`;
    button.disabled = true;
    root.setAttribute("aria-busy", "true");
    verdict.className = "audit-verdict busy";
    verdict.textContent = t("audit.checking", { id });
    try {
      const answer = await verifyGame(id);
      if (ticket !== asked || !verdict.isConnected) return; // asked again, or left the page
      showAnswer(id, answer);
    } catch (err) {
      if (ticket !== asked || !verdict.isConnected) return; // asked again, or left the page
      answerPart.hidden = true;
      verdict.className = "audit-verdict error";
      verdict.textContent = errorSentence(err, id);
    } finally {
      if (ticket === asked) {
        button.disabled = false;
        root.removeAttribute("aria-busy");
      }
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void check(input.value);
  });
  document.title = `${t("common.checkGameTitle")} · Match`;
  if (gameId) await check(gameId);
  else input.focus();
}
