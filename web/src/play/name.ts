/**
 * The name a player sits under, one rule for every game's form.
 *
 * The lobby is the judge (services/lobby/names.py): after NFKC and trimming, 1 to 32
 * characters, single spaces, no invisible or control characters, nothing that reads as a
 * bot's name; anything else is refused with a sentence saying why, which the form shows. The
 * page only tidies what was typed (the ends trimmed, every run of white space one space: the
 * lobby refuses two spaces in a row and tabs) and never cuts it: cutting at 32 of the
 * browser's UTF-16 units would split an emoji into half a character the lobby refuses, or
 * shorten a name the lobby takes (it counts characters). The field's `maxlength` is the
 * lobby's 32. An empty field plays as a neutral `Guest 417`, kept for next time.
 */

import { h } from "../dom";
import { t } from "../i18n";
import type { Store } from "../store";

/** services/lobby/names.py MAX_NAME_CHARS: the name field's maxlength. */
export const NAME_MAX_CHARS = 32;

/** What was typed, tidied: trimmed, each run of white space one space. */
export function tidyName(typed: string): string {
  return typed.trim().replace(/\s+/g, " ");
}

/** A neutral name for who typed none: `Guest 100` to `Guest 999`. */
export function guestName(random: () => number = Math.random): string {
  return t("kit.guestName", { n: 100 + Math.floor(random() * 900) });
}

/** The name to play under (the one typed, tidied, else a guest's), kept for next time. */
export function chooseName(store: Pick<Store, "setDisplayName">, typed: string, random: () => number = Math.random): string {
  const name = tidyName(typed) || guestName(random);
  store.setDisplayName(name);
  return name;
}

/** The name field of every form (`#display-name`), filled with the name kept. */
export function nameField(store: Pick<Store, "displayName">, describedBy?: string): HTMLInputElement {
  return h("input", {
    id: "display-name", name: "display-name", type: "text", maxlength: NAME_MAX_CHARS, autocomplete: "nickname",
    value: store.displayName(), placeholder: t("kit.guestPlaceholder"), "aria-describedby": describedBy,
  });
}
