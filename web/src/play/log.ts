/**
 * Announcements: every line a game's page says goes to its log (`#log`, under "Everything
 * that happened") and, unless it is quiet, to the live region (`#live`) that screen readers
 * read out; an error also fills the page's error line (role=alert).
 */

import type { App } from "../app";
import { h } from "../dom";
import { errorText } from "../rpc";
import { t } from "../i18n";

export class GameLog {
  readonly el: HTMLOListElement = h("ol", { id: "log", class: "log" });

  constructor(private readonly app: Pick<App, "announce">, private readonly limit: number, private readonly errorEl: HTMLElement) {}

  /** Log a line and say it (a quiet one is only logged); "" says nothing. */
  say(text: string, quiet = false): void {
    if (!text) return;
    this.el.append(h("li", { class: quiet ? "quiet" : null }, text));
    while (this.el.childElementCount > this.limit) this.el.firstElementChild?.remove();
    if (!quiet) this.app.announce(text);
  }

  sayAll(lines: readonly string[]): void {
    for (const text of lines) this.say(text);
  }

  /** The server's words for `err` in the error line, logged and said. */
  error(err: unknown): void {
    const text = errorText(err);
    this.errorEl.textContent = text;
    this.say(text);
  }

  clearError(): void {
    this.errorEl.textContent = "";
  }

  /** The log, folded away under "Everything that happened". */
  details(): HTMLDetailsElement {
    return h("details", { class: "log-wrap" }, h("summary", {}, t("kit.everything")), this.el);
  }
}
