/**
 * What every setup form is made of: choices (`<select>`), the submit that shows the server's
 * refusal in the form's error line and says it, and the link home.
 */

import type { App } from "../app";
import { h } from "../dom";
import { errorText } from "../rpc";
import { t } from "../i18n";

/** A choice among `[value, label]` pairs. */
export function select(id: string, values: readonly (readonly [string | number, string])[], selected: string | number): HTMLSelectElement {
  return h("select", { id, name: id }, ...values.map(([v, label]) => h("option", { value: v, selected: String(v) === String(selected) }, label)));
}

/** Numbers as options, labelled by `label`. */
export function options(values: readonly number[], selected: number, label: (v: number) => string): HTMLOptionElement[] {
  return values.map((v) => h("option", { value: v, selected: v === selected }, label(v)));
}

/** A problem with what was typed, found before asking the server: said as it is. */
export class FormProblem extends Error {}

/**
 * A form's submit handler: the error line emptied, `buttons` disabled while `act` runs; a
 * refusal (or a FormProblem) shown in `error` and said in the live region.
 */
export function submitting(app: Pick<App, "announce">, error: HTMLElement, buttons: () => readonly HTMLButtonElement[], act: () => Promise<void>): (ev: Event) => void {
  return (ev: Event) => {
    ev.preventDefault();
    void (async () => {
      error.textContent = "";
      const busy = buttons();
      for (const b of busy) b.disabled = true;
      try {
        await act();
      } catch (err) {
        error.textContent = err instanceof FormProblem ? err.message : errorText(err);
        app.announce(error.textContent);
      } finally {
        for (const b of busy) b.disabled = false;
      }
    })();
  };
}

/** `Back to the games` (and links before it, ` · ` between). */
export function backLinks(...before: HTMLAnchorElement[]): HTMLParagraphElement {
  return h("p", {}, ...before.flatMap((a) => [a, " · "]), h("a", { href: "#/" }, t("common.back")));
}
