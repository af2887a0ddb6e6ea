/**
 * The end of a game: its seed, published once the game is over, the commitment to it that
 * was public from the start, and the link to check the game (the auditor's page).
 */

import { h } from "../dom";
import { hex } from "./words";
import { t } from "../i18n";

/** SHA-256 of the seed equals the published commitment; null where the browser cannot tell. */
export async function seedMatches(seed: Uint8Array, commitment: string): Promise<boolean | null> {
  try {
    if (!commitment || typeof crypto === "undefined" || !crypto.subtle) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", seed.slice()));
    return hex(digest) === commitment.toLowerCase();
  } catch {
    return null;
  }
}

export interface SeedShown {
  readonly seed: Uint8Array | null; // null until it is published (a moment after the end)
  readonly commitment: string;
  readonly gameId: string;
  /** What checking redoes: `deal the cards again from the seed and check that none moved`. */
  readonly again: string;
  /** How the seed is named (`The seed`, `The game's seed`). */
  readonly named?: string;
  /** Say beside the seed whether it matches its commitment (checked in the browser). */
  readonly verify?: boolean;
  /** Shown between the commitment and the check link (the solver's clearing, ...). */
  readonly more?: HTMLElement | null;
}

/** The game-over block's seed (`#seed`), commitment (`#commitment`), the browser's own check
 * of the two (`#seed-check`, with `verify`) and the check-the-game link (`#check-game`). */
export function seedBlock(s: SeedShown): HTMLElement[] {
  const seedHex = hex(s.seed);
  const verdict = h("span", { id: "seed-check" });
  if (s.verify && s.seed !== null && s.commitment) {
    void seedMatches(s.seed, s.commitment).then((ok) => {
      if (ok !== null) verdict.textContent = ok ? t("kit.seedMatches") : t("kit.seedMismatch");
    });
  }
  const block: (HTMLElement | null)[] = [
    seedHex
      ? h("p", {}, `${t("kit.seedPublished", { named: s.named ?? t("kit.theSeed") })} `, h("code", { id: "seed" }, seedHex), s.verify ? " " : null, s.verify ? verdict : null)
      : h("p", {}, h("span", { id: "seed" }, ""), t("kit.seedComing")),
    s.commitment ? h("p", { class: "muted" }, `${t("kit.commitment")} `, h("code", { id: "commitment" }, s.commitment)) : null,
    s.more ?? null,
    h("p", {}, `${t("kit.anybodyCan", { again: s.again })} `,
      h("a", { id: "check-game", href: `#/audit/${encodeURIComponent(s.gameId)}` }, t("kit.checkThisGame"))),
  ];
  return block.filter((el): el is HTMLElement => el !== null);
}
