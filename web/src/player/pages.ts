/**
 * The player's pages (docs/client.md, "Your key in the browser"):
 *   #/me                                   your key (make, export, import), profile, statistics,
 *                                          daily streak (and today's puzzle), your seats
 *   #/player/<player_id>                   a player's public profile
 *   #/leaderboard/<game>[/<board>[/<page>]] a game's leaderboard ("main": its main board)
 * The games are handed in by routes.ts (a page's folder imports no registry).
 */

import type { App } from "../app";
import { fill, h } from "../dom";
import { GameKind, Visibility } from "../gen/match/v1/common_pb";
import { NumberMatchSettings_Level } from "../gen/match/v1/number_match_pb";
import type { GetLeaderboardResponse, Profile } from "../gen/match/v1/players_pb";
import { has, locale, t } from "../i18n";
import { chooseName } from "../play/name";
import { keepSeat } from "../play/seat";
import { backoffMs, command, errorText, retriable, retryWait } from "../rpc";
import { boardOfPath, figureName, figureParts, duration, number, pathOfBoard, rating as ratingNumber, valueText } from "./figures";
import { KeyTextError } from "./key";
import { ImportRefused } from "./session";

export interface GameRef {
  readonly slug: string;
  readonly title: string;
  readonly kind: GameKind;
}

const DAILY_SLUG = "number-match";
const PAGE_SIZE = 20;
/** A read the server could not answer (the players service busy or starting, the connection
 * lost) is asked again this many times, after 0.5 s, 1 s, 2 s, before the page says why. */
const READ_RETRIES = 3;

/** `call`, asked again while its error is worth another try (rpc.retriable); then its error. */
export async function read<T>(call: () => Promise<T>, isStopped: () => boolean = () => false): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await call();
    } catch (err) {
      if (n >= READ_RETRIES || !retriable(err) || isStopped()) throw err;
      await retryWait(backoffMs(n));
    }
  }
}

function gameTitle(games: readonly GameRef[], kind: GameKind): string {
  return games.find((g) => g.kind === kind)?.title ?? t("player.unknownGame", { kind });
}

function day(ms: number): string {
  return new Date(ms).toLocaleDateString(locale());
}

function ratingText(rating: number, provisional: boolean): string {
  const text = ratingNumber(rating, locale());
  return provisional ? t("player.ratingProvisional", { rating: text }) : text;
}

/** Today's date where the player is (`YYYY-MM-DD`) and its offset from UTC in minutes. */
export function localToday(now: Date = new Date()): { date: string; offsetMinutes: number } {
  const y = now.getFullYear();
  const m = String(now.getMonth() + 1).padStart(2, "0");
  const d = String(now.getDate()).padStart(2, "0");
  return { date: `${y}-${m}-${d}`, offsetMinutes: -now.getTimezoneOffset() };
}

function ratingsList(games: readonly GameRef[], profile: Profile): HTMLElement {
  if (!profile.ratings.length) return h("p", { id: "ratings" }, t("player.noRatings"));
  return h("ul", { id: "ratings" }, ...profile.ratings.map((r) => {
    const game = games.find((g) => g.kind === r.gameKind);
    return h("li", { "data-game": game?.slug ?? String(r.gameKind), "data-rating": r.rating.toFixed(1) },
      t("player.ratingLine", { game: gameTitle(games, r.gameKind), rating: ratingText(r.rating, r.provisional), games: r.games }),
      game ? h("span", {}, " · ", h("a", { href: `#/leaderboard/${game.slug}` }, t("player.seeLeaderboard"))) : null);
  }));
}

function profileBlock(games: readonly GameRef[], profile: Profile, own: boolean): HTMLElement[] {
  const name = profile.displayName || t("player.noName");
  return [
    h("p", { id: "profile-name" }, own ? t("player.profileOwn", { name, id: profile.playerId }) : t("player.profileOf", { name, id: profile.playerId })),
    h("p", { class: "muted" }, profile.firstGameAtMs > 0n ? t("player.since", { date: day(Number(profile.firstGameAtMs)) }) : t("player.noGameYet")),
    h("h3", {}, t("player.ratings")),
    ratingsList(games, profile),
  ];
}

function boardLinks(games: readonly GameRef[]): HTMLElement {
  return h("ul", { id: "leaderboards" }, ...games.map((g) =>
    h("li", {}, h("a", { href: `#/leaderboard/${g.slug}`, "data-game": g.slug }, g.title))));
}

// --- #/me --------------------------------------------------------------------------------------

export function mountMe(root: HTMLElement, app: App, games: readonly GameRef[]): () => void {
  const { player } = app;
  let stopped = false;
  const keyPanel = h("section", { id: "key-panel", class: "panel", "aria-labelledby": "key-heading" });
  const importPanel = h("section", { id: "import-panel", class: "panel", "aria-labelledby": "import-heading" });
  const figures = h("div", { id: "figures" });
  const error = h("p", { id: "me-error", class: "error", role: "alert" });

  const say = (text: string): void => app.announce(text);
  const fail = (err: unknown): void => {
    error.textContent = err instanceof KeyTextError || err instanceof ImportRefused ? err.message : errorText(err);
    say(error.textContent);
  };
  const busy = (act: () => Promise<void>) => (ev: Event) => {
    ev.preventDefault();
    const button = ev.currentTarget instanceof HTMLButtonElement ? ev.currentTarget : null;
    if (button) button.disabled = true;
    error.textContent = "";
    void act().catch(fail).finally(() => { if (button) button.disabled = false; });
  };

  async function drawKey(): Promise<void> {
    const key = await player.current();
    if (stopped) return;
    if (key === null) {
      fill(keyPanel,
        h("h2", { id: "key-heading" }, t("player.keyHeading")),
        h("p", {}, t("player.noKeyYet")),
        h("p", {}, t("player.keyWhat")),
        h("button", { id: "make-key", type: "button", class: "primary", onclick: busy(async () => {
          const made = await player.create();
          say(t("player.keyMade", { id: made.playerId }));
          await redraw();
          document.getElementById("export-key")?.focus();
        }) }, t("player.makeKey")));
      return;
    }
    const exported = player.exportedAtMs();
    const keyText = h("textarea", { id: "key-text", readonly: true, rows: 4, cols: 66, spellcheck: "false", "aria-label": t("player.keyTextLabel"), hidden: true });
    const download = h("a", { id: "key-download", hidden: true });
    fill(keyPanel,
      h("h2", { id: "key-heading" }, t("player.keyHeading")),
      h("p", { id: "player-id", "data-player-id": key.playerId }, t("player.youAre", { id: key.playerId })),
      h("p", { id: "key-warning", class: "key-warning" },
        exported === null ? t("player.warningNotSaved") : t("player.warningSaved", { date: new Date(exported).toLocaleString(locale()) })),
      h("p", {}, t("player.keyCounts")),
      h("div", { class: "key-actions" },
        h("button", { id: "export-key", type: "button", onclick: busy(async () => {
          const pem = await player.exportPem();
          const url = URL.createObjectURL(new Blob([pem], { type: "application/x-pem-file" }));
          download.setAttribute("href", url);
          download.setAttribute("download", `match-key-${key.playerId}.pem`);
          download.click();
          setTimeout(() => URL.revokeObjectURL(url), 60_000);
          say(t("player.exported"));
          refreshWarning();
        }) }, t("player.exportFile")),
        h("button", { id: "show-key", type: "button", onclick: busy(async () => {
          keyText.value = await player.exportPem();
          keyText.hidden = false;
          keyText.focus();
          keyText.select();
          say(t("player.shown"));
          refreshWarning();
        }) }, t("player.exportText"))),
      keyText, download,
      h("p", { class: "muted" }, t("player.terminalHow")));
  }

  function refreshWarning(): void {
    const warning = document.getElementById("key-warning");
    const exported = player.exportedAtMs();
    if (warning && exported !== null) warning.textContent = t("player.warningSaved", { date: new Date(exported).toLocaleString(locale()) });
  }

  function drawImport(): void {
    const text = h("textarea", { id: "import-text", rows: 4, cols: 66, spellcheck: "false", "aria-describedby": "import-help" });
    const file = h("input", { id: "import-file", type: "file", accept: ".pem,.key,.txt,text/plain,application/x-pem-file" });
    const importError = h("p", { id: "import-error", class: "error", role: "alert" });
    const replace = h("button", { id: "replace-key", type: "button", hidden: true }, t("player.replaceKey"));
    const use = async (allowReplace: boolean): Promise<void> => {
      importError.textContent = "";
      let source = text.value;
      const chosen = file.files?.[0];
      if (!source.trim() && chosen) source = await chosen.text();
      try {
        const key = await player.importPem(source, allowReplace);
        replace.hidden = true;
        text.value = "";
        file.value = "";
        say(t("player.imported", { id: key.playerId }));
        await redraw();
      } catch (err) {
        if (err instanceof ImportRefused) replace.hidden = false;
        importError.textContent = err instanceof KeyTextError || err instanceof ImportRefused ? err.message : errorText(err);
        say(importError.textContent);
        if (err instanceof ImportRefused) replace.focus();
      }
    };
    replace.addEventListener("click", busy(() => use(true)));
    fill(importPanel,
      h("h2", { id: "import-heading" }, t("player.importHeading")),
      h("p", { id: "import-help", class: "muted" }, t("player.importHelp")),
      h("label", { for: "import-text" }, t("player.importTextLabel")),
      text,
      h("p", {}, h("label", { for: "import-file" }, t("player.importFileLabel")), " ", file),
      h("button", { id: "import-key", type: "button", onclick: busy(() => use(false)) }, t("player.importKey")),
      replace,
      importError);
  }

  async function drawFigures(): Promise<void> {
    const key = await player.current();
    if (stopped) return;
    if (key === null) {
      fill(figures, h("section", { class: "panel" }, h("h2", {}, t("player.leaderboards")), boardLinks(games)));
      return;
    }
    const { players } = app.api;
    const gone = (): boolean => stopped;
    const [profile, statistics, streak, seats] = await Promise.allSettled([
      read(() => players.getMyProfile({}), gone), read(() => players.getMyStatistics({}), gone),
      read(() => players.getMyStreak({}), gone), read(() => players.findMySeats({}), gone),
    ]);
    if (stopped) return;
    const failed = (r: PromiseSettledResult<unknown>): HTMLElement | null =>
      r.status === "rejected" ? h("p", { class: "error" }, t("player.couldNotRead", { why: errorText(r.reason) })) : null;

    const today = localToday();
    const dailyButton = h("button", { id: "play-daily", type: "button", class: "primary", onclick: busy(async () => {
      const displayName = chooseName(app.store, app.store.displayName());
      const made = await command((headers) => app.api.lobby.createTable({
        gameKind: GameKind.NUMBER_MATCH,
        seats: 1,
        visibility: Visibility.PRIVATE,
        displayName,
        settings: { case: "numberMatch", value: { level: NumberMatchSettings_Level.HARD, dailyDate: today.date, utcOffsetMinutes: today.offsetMinutes } },
      }, { headers }), undefined, { what: t("player.dailyWhat") });
      keepSeat(app.store, DAILY_SLUG, made, displayName);
      app.navigate(`#/play/${DAILY_SLUG}/${made.tableId}`);
    }) }, t("player.playDaily", { date: today.date }));

    fill(figures,
      h("section", { id: "profile", class: "panel", "aria-labelledby": "profile-heading" },
        h("h2", { id: "profile-heading" }, t("player.profileHeading")),
        ...(profile.status === "fulfilled" && profile.value.profile ? profileBlock(games, profile.value.profile, true) : [failed(profile) ?? h("p", {}, t("player.noGameYet"))])),
      h("section", { id: "streak-panel", class: "panel", "aria-labelledby": "streak-heading" },
        h("h2", { id: "streak-heading" }, t("player.streakHeading")),
        streak.status === "fulfilled"
          ? h("p", { id: "streak", "data-current": streak.value.current, "data-best": streak.value.best, "data-solved": streak.value.solved },
            streak.value.solved === 0 ? t("player.streakNone")
              : t("player.streakLine", { current: streak.value.current, best: streak.value.best, last: streak.value.lastDate, solved: streak.value.solved }))
          : failed(streak),
        h("p", { class: "muted" }, t("player.dailyHelp")),
        dailyButton),
      h("section", { id: "seats-panel", class: "panel", "aria-labelledby": "online-seats-heading" },
        h("h2", { id: "online-seats-heading" }, t("player.seatsHeading")),
        seats.status === "fulfilled"
          ? (seats.value.seats.length === 0 ? h("p", { id: "online-seats" }, t("player.seatsNone"))
            : h("ul", { id: "online-seats" }, ...seats.value.seats.map((s) => {
              const game = games.find((g) => g.kind === s.gameKind);
              return h("li", { "data-table-id": s.tableId },
                t("player.seatLine", { game: gameTitle(games, s.gameKind), table: s.tableId, seat: s.seat, name: s.displayName }), " ",
                game ? h("button", { type: "button", class: "resume-seat", "data-table-id": s.tableId,
                  "aria-label": t("player.resumeLabel", { game: game.title, table: s.tableId }),
                  onclick: () => {
                    keepSeat(app.store, game.slug, { tableId: s.tableId, playerId: key.playerId, playerToken: s.playerToken, seat: s.seat }, s.displayName, s.table?.inviteCode ?? "");
                    app.navigate(`#/play/${game.slug}/${s.tableId}`);
                  } }, t("player.resume")) : null);
            })))
          : failed(seats)),
      h("section", { id: "statistics", class: "panel", "aria-labelledby": "stats-heading" },
        h("h2", { id: "stats-heading" }, t("player.statsHeading")),
        statistics.status === "fulfilled"
          ? (statistics.value.games.length === 0 ? h("p", {}, t("player.statsNone"))
            : h("ul", {}, ...statistics.value.games.map((g) => h("li", { "data-game-kind": g.gameKind },
              t("player.statsLine", { game: gameTitle(games, g.gameKind), games: g.games, wins: g.wins, draws: g.draws }),
              g.figures.length ? h("ul", {}, ...g.figures.map((f) => {
                const { label, timed } = figureLabel(f.name);
                const value = timed ? duration(Number(f.value), locale()) : number(Number(f.value), locale());
                return h("li", {}, t("player.figure", { label, value, keep: f.keep }));
              })) : null))))
          : failed(statistics)),
      h("section", { class: "panel", "aria-labelledby": "boards-heading" },
        h("h2", { id: "boards-heading" }, t("player.leaderboards")),
        boardLinks(games)));
  }

  async function redraw(): Promise<void> {
    await drawKey();
    await drawFigures();
  }

  document.title = t("player.meTitle");
  root.replaceChildren(
    h("section", { class: "panel" },
      h("h1", {}, t("player.meHeading")),
      h("p", {}, h("a", { href: "#/" }, t("common.back"))),
      error),
    keyPanel, importPanel, figures);
  drawImport();
  void redraw().catch(fail);
  return () => { stopped = true; };
}

// --- #/player/<id> -----------------------------------------------------------------------------

export function mountProfile(root: HTMLElement, app: App, games: readonly GameRef[], playerId: string): () => void {
  let stopped = false;
  const body = h("div", { id: "public-profile" }, h("p", {}, t("player.loading")));
  document.title = t("player.profileTitle", { id: playerId });
  root.replaceChildren(h("section", { class: "panel" },
    h("h1", {}, t("player.profileHeadingOf", { id: playerId })),
    body,
    h("p", {}, h("a", { href: "#/me" }, t("player.toMe")), " · ", h("a", { href: "#/" }, t("common.back")))));
  void (async () => {
    try {
      const r = await read(() => app.api.players.getProfile({ playerId }), () => stopped);
      if (stopped) return;
      fill(body, ...(r.profile ? profileBlock(games, r.profile, playerId === app.player.playerId()) : []));
    } catch (err) {
      if (!stopped) fill(body, h("p", { class: "error", role: "alert" }, errorText(err)));
    }
  })();
  return () => { stopped = true; };
}

// --- #/leaderboard/<game>[/<board>[/<page>]] ---------------------------------------------------

function boardName(board: string): string {
  return board === "" ? t("player.mainBoard") : board;
}

export function mountLeaderboard(root: HTMLElement, app: App, games: readonly GameRef[], args: string[]): () => void {
  const [slug, boardPart, pagePart] = args;
  const found = slug === undefined ? games[0] : games.find((g) => g.slug === slug);
  if (found === undefined) {
    document.title = t("player.boardTitle", { game: slug ?? "" });
    root.replaceChildren(h("section", { class: "panel" },
      h("h1", {}, t("player.noSuchGame", { slug: slug ?? "" })),
      h("ul", { id: "board-games" }, ...games.map((g) => h("li", {}, h("a", { href: `#/leaderboard/${g.slug}` }, g.title)))),
      h("p", {}, h("a", { href: "#/" }, t("common.back")))));
    return () => {};
  }
  const game = found;
  const board = boardOfPath(boardPart);
  const page = /^[1-9][0-9]{0,5}$/.test(pagePart ?? "") ? Number(pagePart) : 1;
  let stopped = false;
  const body = h("div", { id: "leaderboard" }, h("p", {}, t("player.loading")));
  const heading = t("player.boardHeading", { game: game.title, board: boardName(board) });
  document.title = t("player.boardTitle", { game: game.title });
  root.replaceChildren(h("section", { class: "panel" },
    h("h1", {}, heading),
    h("nav", { "aria-label": t("player.gamesNav") }, h("ul", { id: "board-games", class: "inline-list" }, ...games.map((g) =>
      h("li", {}, h("a", { href: `#/leaderboard/${g.slug}`, "aria-current": g.slug === game.slug ? "page" : null }, g.title))))),
    body,
    h("p", {}, h("a", { href: "#/me" }, t("player.toMe")), " · ", h("a", { href: "#/" }, t("common.back")))));
  void (async () => {
    try {
      const r = await read(() => app.api.players.getLeaderboard({ gameKind: game.kind, board, page, pageSize: PAGE_SIZE }), () => stopped);
      const me = (await app.player.current())?.playerId ?? null;
      if (!stopped) fill(body, ...leaderboardBody(game, board, r, me));
    } catch (err) {
      if (!stopped) fill(body, h("p", { class: "error", role: "alert" }, errorText(err)));
    }
  })();
  return () => { stopped = true; };
}

function leaderboardBody(game: GameRef, board: string, r: GetLeaderboardResponse, me: string | null): HTMLElement[] {
  const base = `#/leaderboard/${game.slug}/${encodeURIComponent(pathOfBoard(board))}`;
  const others = r.boards.filter((b) => b !== board);
  const boards = others.length || board !== ""
    ? h("nav", { "aria-label": t("player.boardsNav") }, h("p", {}, t("player.otherBoards"), " "),
      h("ul", { id: "boards", class: "inline-list" }, ...["", ...r.boards.filter((b) => b !== "")].map((b) =>
        h("li", {}, h("a", { href: `#/leaderboard/${game.slug}/${encodeURIComponent(pathOfBoard(b))}`, "aria-current": b === board ? "page" : null }, boardName(b))))))
    : null;
  if (r.pages === 0 || r.rows.length === 0) return [h("p", { id: "board-empty" }, t("player.boardEmpty")), ...(boards ? [boards] : [])];
  const unit = r.unit || "value";
  const table = h("table", { id: "board-rows" },
    h("caption", {}, t("player.boardCaption", { unit, lower: r.lowerIsBetter ? "yes" : "no" })),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("player.colRank")), h("th", { scope: "col" }, t("player.colPlayer")),
      h("th", { scope: "col" }, t("player.unit", { unit })), h("th", { scope: "col" }, t("player.colGames")))),
    h("tbody", {}, ...r.rows.map((row) => {
      const mine = row.playerId === me;
      return h("tr", { "data-player-id": row.playerId, class: mine ? "me" : null, "aria-current": mine ? "true" : null },
        h("td", {}, String(row.rank)),
        h("td", {}, h("a", { href: `#/player/${row.playerId}` }, row.displayName || row.playerId), mine ? ` ${t("player.you")}` : ""),
        h("td", { "data-value": String(row.value) }, valueText(row.value, r.unit, locale()) + (row.provisional ? " ?" : "")),
        h("td", {}, String(row.games)));
    })));
  const pager = h("p", { id: "board-pages" }, t("player.pageOf", { page: r.page, pages: r.pages, total: r.total }),
    r.page > 1 ? h("span", {}, " · ", h("a", { href: `${base}/${r.page - 1}` }, t("player.previous"))) : null,
    r.page < r.pages ? h("span", {}, " · ", h("a", { href: `${base}/${r.page + 1}` }, t("player.next"))) : null);
  const note = r.unit === "rating" && r.rows.some((row) => row.provisional) ? h("p", { class: "muted" }, t("player.provisionalNote")) : null;
  return [table, ...(note ? [note] : []), pager, ...(boards ? [boards] : [])];
}

/** A statistic's name in the page's language (`player.fig.<base>`), its board's name kept as the
 * rules name it; a name the catalog does not know yet is said as its words. */
function figureLabel(name: string): { label: string; timed: boolean } {
  const { key, n, qualifier, timed } = figureParts(name);
  if (!has("en", `player.fig.${key}`)) return figureName(name);
  const words = t(`player.fig.${key}`, n === null ? undefined : { n });
  return { label: qualifier ? t("player.figQualified", { words, qualifier }) : words, timed };
}
