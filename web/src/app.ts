/** What every page gets: the API, this browser's store, the live region, navigation. */

import type { Player } from "./player/session";
import type { Api } from "./rpc";
import type { Store } from "./store";

export interface App {
  readonly api: Api;
  readonly store: Store;
  /** The player's key in this browser and its session (none: the browser plays anonymously). */
  readonly player: Player;
  /** Say something in the aria-live region (#live): screen readers read it out politely. */
  announce(text: string): void;
  navigate(hash: string): void;
}

/** A page: draws itself into `root` and returns what stops it (streams, timers, listeners). */
export type Page = (root: HTMLElement, app: App, args: string[]) => () => void;
