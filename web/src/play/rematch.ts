/**
 * "Play again with the same players", under a finished game of two or more people
 * (LobbyService.Rematch; docs/api.md, "Rematch"). The first player to press it makes the
 * rematch table and goes there; the others see the offer (the finished table's GetTable,
 * asked every few seconds while the page is open) and accept it in one click. Each keeps the
 * new seat's token (keepSeat) and opens the game's page for the new table, which starts when
 * everybody is in. A table where a bot played, or of one player, offers no rematch: the block
 * stays hidden. Spectators (no seat kept) see nothing either.
 */

import type { App } from "../app";
import { fill, h, setText } from "../dom";
import { Table_Status, type Rematch, type Table } from "../gen/match/v1/lobby_pb";
import { t } from "../i18n";
import { bearer, command, errorText } from "../rpc";
import type { KeptSeat } from "../store";
import { keepSeat } from "./seat";

const POLL_MS = 2_000;

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
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
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

  /** The game is over: look for an offer now and every few seconds. Idempotent. */
  over(): void {
    if (this.seat === undefined || this.timer !== undefined || this.stopped) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), POLL_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
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
      if (!this.stopped && this.table === null) setText(this.error, t("lobby.rematch.checkFailed", { reason: errorText(err) }));
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
