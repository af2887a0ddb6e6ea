/**
 * "Play again with the same players", under a finished game of two or more people
 * (LobbyService.Rematch; docs/api.md, "Rematch"). The first player to press it makes the
 * rematch table and goes there; the others see the offer (the finished table's GetTable,
 * asked again while the page is open and shown: see `pollDelayMs`) and accept it in one
 * click. Each keeps the
 * new seat's token (keepSeat) and opens the game's page for the new table, which starts when
 * everybody is in. A table where a bot played, or of one player, offers no rematch: the block
 * stays hidden. Spectators (no seat kept) see nothing either.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { App } from "../app";
import { fill, h, setText } from "../dom";
import { Table_Status, type Rematch, type Table } from "../gen/match/v1/lobby_pb";
import { t } from "../i18n";
import { bearer, command, errorText, refusalCode } from "../rpc";
import type { KeptSeat } from "../store";
import { keepSeat } from "./seat";

/** How often the block asks while a rematch is likely: the first two minutes after the game, and while an offer waits. */
export const POLL_MS = 2_000;
export const FAST_FOR_MS = 120_000;
/** The longest wait between two asks: a page left open on a finished game costs the lobby one call a half-minute. */
export const SLOW_POLL_MS = 30_000;

/**
 * The wait before the next GetTable of the finished table: every 2 s for the first two minutes
 * after the game (when players ask for rematches) and while an offer waits for players; after
 * that each wait twice the one before, up to 30 s. A page left open for the hour the lobby keeps
 * the table (`LOBBY_KEEP_FINISHED_S`) asks under 200 times, not 1,800. A hidden page does not ask at
 * all, and asks at once when it is shown again.
 */
export function pollDelayMs(sinceOverMs: number, lastMs: number, offerWaiting: boolean): number {
  if (offerWaiting || sinceOverMs < FAST_FOR_MS) return POLL_MS;
  return Math.min(Math.max(lastMs, POLL_MS) * 2, SLOW_POLL_MS);
}

/**
 * Whether an error of the finished table's GetTable ends the asking: the lobby let the table go
 * (NOT_FOUND `table_archived`, an hour after the game by default) or never had it, or the seat's
 * token is not good there. Asking again would only be refused again. Anything else (the network,
 * the lobby restarting) is asked again at the next turn.
 */
export function endsPolling(err: unknown): boolean {
  return err instanceof ConnectError &&
    (err.code === Code.NotFound || err.code === Code.Unauthenticated || err.code === Code.PermissionDenied);
}

/** Whether the players of `table` may play it again together: two or more, no bot. */
export function rematchable(table: Pick<Table, "taken">): boolean {
  return table.taken.length >= 2 && !table.taken.some((s) => s.isBot);
}

/** The names of the players who asked for (or accepted) the rematch, the caller left out. */
export function askers(table: Pick<Table, "taken">, rematch: Pick<Rematch, "accepted">, me: string): string[] {
  return table.taken.filter((s) => s.playerId !== me && rematch.accepted.includes(s.playerId)).map((s) => s.displayName);
}

export class RematchOffer {
  /** `#rematch-panel`: put it under the game-over block (it is hidden until it has something). */
  readonly el: HTMLElement;
  private readonly status: HTMLElement;
  private readonly error: HTMLElement;
  private readonly button: HTMLButtonElement;
  private table: Table | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private overAt = 0; // performance.now() when the game was seen over
  private delay = POLL_MS;
  private started = false;
  private stopped = false;
  private readonly shown = (): void => {
    if (!document.hidden && this.started && !this.stopped) void this.turn();
  };
  private announced = "";
  private busy = false;

  constructor(private readonly app: App, private readonly game: string, private readonly tableId: string,
    private readonly seat: KeptSeat | undefined) {
    this.status = h("p", { id: "rematch-status" });
    this.error = h("p", { id: "rematch-error", class: "error", role: "alert" });
    this.button = h("button", { id: "rematch", type: "button", onclick: () => void this.press() }, t("lobby.rematch.offer"));
    this.el = h("section", { id: "rematch-panel", class: "rematch", hidden: true, "aria-labelledby": "rematch-heading" },
      h("h3", { id: "rematch-heading" }, t("lobby.rematch.heading")), this.status, this.button, this.error);
  }

  /** The game is over: look for an offer now, then as `pollDelayMs` says. Idempotent. */
  over(): void {
    if (this.seat === undefined || this.started || this.stopped) return;
    this.started = true;
    this.overAt = performance.now();
    document.addEventListener("visibilitychange", this.shown);
    void this.turn();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    document.removeEventListener("visibilitychange", this.shown);
  }

  /** Ask now (unless the page is hidden: then when it is shown), and set the next turn. */
  private async turn(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || document.hidden) return;
    await this.check();
    if (this.stopped || this.timer !== undefined) return; // stopped, or shown again meanwhile
    const r = this.table?.rematch;
    const waiting = r !== undefined && !r.expired && r.status === Table_Status.WAITING;
    this.delay = pollDelayMs(performance.now() - this.overAt, this.delay, waiting);
    this.timer = setTimeout(() => void this.turn(), this.delay);
  }

  private async check(): Promise<void> {
    if (this.stopped || this.seat === undefined) return;
    try {
      const res = await this.app.api.lobby.getTable({ tableId: this.tableId }, { headers: bearer(this.seat.token) });
      if (this.stopped || res.table === undefined) return;
      this.table = res.table;
      this.draw();
      const r = res.table.rematch;
      if (!rematchable(res.table) || (r !== undefined && (r.expired || r.status !== Table_Status.WAITING))) {
        if (res.table.status === Table_Status.FINISHED) this.stop();
      }
    } catch (err) {
      if (this.stopped) return;
      // The lobby let the table go (or the seat is not good there): ask no more, and say so.
      if (endsPolling(err)) this.stop();
      if (this.table === null) {
        setText(this.error, t("lobby.rematch.checkFailed", { reason: errorText(err) }));
      } else if (this.stopped) {
        setText(this.status, refusalCode(err) === "table_archived" ? t("lobby.rematch.closed") : errorText(err));
        this.button.hidden = true;
      }
    }
  }

  private draw(): void {
    const table = this.table;
    const seat = this.seat;
    if (table === null || seat === undefined) return;
    // Not shown before the lobby's listing has the game over too (it may lag the Watch stream).
    if (!rematchable(table) || table.status !== Table_Status.FINISHED) { this.el.hidden = true; return; }
    this.el.hidden = false;
    const r = table.rematch;
    const mine = r !== undefined && r.accepted.includes(seat.playerId);
    let text = t("lobby.rematch.invite");
    let label = t("lobby.rematch.offer");
    let show = true;
    if (r?.expired) {
      text = t("lobby.rematch.expired");
      show = false;
    } else if (r !== undefined && mine) {
      text = r.status === Table_Status.WAITING
        ? t("lobby.rematch.waiting", { accepted: r.accepted.length, total: table.taken.length })
        : t("lobby.rematch.started");
      label = t("lobby.rematch.go");
      show = this.app.store.seat(r.tableId) !== undefined;
    } else if (r !== undefined && r.status === Table_Status.WAITING) {
      const names = askers(table, r, seat.playerId);
      text = t("lobby.rematch.offered", { names: names.join(", "), count: names.length });
      label = t("lobby.rematch.accept");
      if (this.announced !== text) { this.announced = text; this.app.announce(text); }
    } else if (r !== undefined) {
      text = t("lobby.rematch.started");
      show = false;
    }
    setText(this.status, text);
    setText(this.button, label);
    this.button.hidden = !show;
  }

  private async press(): Promise<void> {
    const seat = this.seat;
    if (seat === undefined || this.busy) return;
    const r = this.table?.rematch;
    if (r !== undefined && r.accepted.includes(seat.playerId) && this.app.store.seat(r.tableId)) {
      this.app.navigate(`#/play/${this.game}/${r.tableId}`); // taken already: go there
      return;
    }
    this.busy = true;
    this.button.disabled = true;
    fill(this.error);
    try {
      const got = await command((headers) => this.app.api.lobby.rematch({ tableId: this.tableId }, { headers }), seat.token,
        { what: t("lobby.rematch.what") });
      keepSeat(this.app.store, this.game, got, seat.displayName);
      this.stop();
      this.app.navigate(`#/play/${this.game}/${got.tableId}`);
    } catch (err) {
      setText(this.error, errorText(err));
      this.app.announce(this.error.textContent ?? "");
      void this.check();
    } finally {
      this.busy = false;
      this.button.disabled = false;
    }
  }
}
