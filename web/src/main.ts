/**
 * The browser client of Match: a hash-routed single page over the lobby's Connect edge.
 *   #/                       home: the games, a new race, open race tables, your seats
 *   #/play/<game>/<args...>  a game's page (games.ts), e.g. #/play/race/<table_id>
 *   #/<route>/<args...>      other pages (routes.ts), e.g. #/audit/<game_id>, #/rules/<game>
 */

import type { App } from "./app";
import { mountBanner } from "./connection";
import { h } from "./dom";
import { gameBySlug } from "./games";
import { chooseLocale, LANGUAGE_NAMES, LOCALES, locale, setLocale, t, testHooks, type Locale } from "./i18n";
import "./i18n/languages";
import { homePage } from "./home";
import { Player } from "./player/session";
import { ROUTES } from "./routes";
import { makeApi } from "./rpc";
import { Store } from "./store";

const LIVE_LINES = 6;

function start(): void {
  const root = document.getElementById("app");
  const live = document.getElementById("live");
  if (root === null || live === null) throw new Error("index.html needs #app and #live");
  setLocale(chooseLocale(localStorage, navigator.languages));
  (window as unknown as { matchI18n: unknown }).matchI18n = testHooks(); // for the browser tests
  mountChrome();
  mountBanner(root); // the connection-lost banner, above every page
  const store = new Store();
  // The session goes with CreateTable and JoinTable once this browser holds a player key.
  const api = makeApi(location.origin, store.clientKey(), () => player);
  const player: Player = new Player(() => api.players, store.kv);
  const app: App = {
    api,
    store,
    player,
    announce(text: string) {
      live.append(h("p", {}, text));
      while (live.childElementCount > LIVE_LINES) live.firstElementChild?.remove();
    },
    navigate(hash: string) {
      if (location.hash === hash) route();
      else location.hash = hash;
    },
  };

  let stop: () => void = () => {};
  function route(): void {
    stop();
    stop = () => {};
    live!.replaceChildren(); // the last page's news is not this page's
    const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
    window.scrollTo(0, 0);
    const [head, ...rest] = parts;
    if (head === undefined || head === "") {
      document.title = "Match";
      stop = homePage(root!, app, []);
      return;
    }
    if (head === "play") {
      const [slug, ...args] = rest;
      const game = slug === undefined ? undefined : gameBySlug(slug);
      if (game?.page) {
        document.title = `${game.title} · Match`;
        stop = game.page(root!, app, args);
        return;
      }
      root!.replaceChildren(h("section", { class: "panel" },
        h("h1", {}, game ? game.title : t("common.unknownGame")),
        h("p", {}, game ? t("common.noPageYet") : t("common.noSuchGame", { slug: slug ?? "" })),
        h("p", {}, h("a", { href: "#/" }, t("common.back")))));
      return;
    }
    const page = ROUTES[head];
    if (page) {
      stop = page(root!, app, rest);
      return;
    }
    root!.replaceChildren(h("section", { class: "panel" }, h("h1", {}, t("common.notFound")), h("p", {}, h("a", { href: "#/" }, t("common.back")))));
  }
  window.addEventListener("hashchange", route);
  route();
}

/**
 * The page's frame in the player's language: the skip link, the live region's name, and the
 * language switch in the top bar (the choice is kept, and the page drawn again in it).
 */
function mountChrome(): void {
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("common.skip");
  document.getElementById("live")?.setAttribute("aria-label", t("common.liveLabel"));
  const nav = document.querySelector("nav.top");
  if (!nav || document.getElementById("language")) return;
  const choose = h("select", { id: "language", name: "language", "aria-label": t("common.language"),
    onchange: () => {
      setLocale(choose.value as Locale, localStorage);
      location.reload(); // every page, its streams and its log start again in the new language
    } },
  ...LOCALES.map((l) => h("option", { value: l, lang: l, selected: l === locale() }, LANGUAGE_NAMES[l])));
  nav.append(h("label", { class: "language" }, h("span", { "aria-hidden": "true" }, "\u{1f310} "), choose));
}

start();
