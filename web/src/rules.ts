/**
 * `#/rules/<game>`: a game's rules as players read them, short and faithful to the seeds that
 * describe the games (shared/seeds: Match Cards' are Greek, Number Match's German, the others'
 * English), in the player's language. The words are the catalogs' (`rules.<game>.<n>`).
 */

import type { Page } from "./app";
import { h } from "./dom";
import { gameBySlug } from "./games";
import { t } from "./i18n";

/** How many rules each game has in the catalogs, and the language its seed is written in. */
const RULES: Readonly<Record<string, { readonly points: number; readonly source: "en" | "de" | "el" }>> = {
  race: { points: 7, source: "en" },
  concentration: { points: 6, source: "en" },
  "match-cards": { points: 6, source: "el" },
  "number-match": { points: 6, source: "de" },
  "match-5": { points: 6, source: "en" },
};

export const rulesPage: Page = (root, _app, args) => {
  const slug = args[0] ?? "";
  const game = gameBySlug(slug);
  const rules = RULES[slug];
  if (game === undefined || rules === undefined) {
    document.title = `${t("common.notFound")} · Match`;
    root.replaceChildren(h("section", { class: "panel" },
      h("h1", {}, t("common.notFound")),
      h("p", {}, t("rules.unknown", { slug })),
      h("p", {}, h("a", { href: "#/" }, t("common.back")))));
    return () => {};
  }
  const title = t("rules.title", { game: game.title });
  document.title = `${title} · Match`;
  const play = slug === "race" ? "#/" : `#/play/${slug}/new`;
  root.replaceChildren(h("article", { class: "panel rules", "data-game": slug },
    h("h1", {}, title),
    h("ol", { class: "rules-list" }, ...Array.from({ length: rules.points }, (_, i) => h("li", {}, t(`rules.${slug}.${i + 1}`)))),
    h("p", { class: "muted" }, t("rules.from", { lang: t(`rules.lang.${rules.source}`) })),
    h("p", { class: "card-links" },
      h("a", { class: "play-button", href: play, id: "rules-play" }, t("rules.play", { game: game.title })),
      h("a", { href: "#/" }, t("common.back")))));
  return () => {};
};
