/**
 * Pages that are not a game's: `#/<name>/<args...>`. `#/audit/<game_id>` is the auditor's
 * page (web/src/audit/): the ledger's checks of a finished game; `#/audit` asks for an id.
 * `#/lobby` (and `#/lobby/<game>`) the open tables of every game, `#/join/<code>` an invite
 * link (web/src/lobby/).
 */

import type { Page } from "./app";
import { mountAudit } from "./audit/page";
import { GAMES } from "./games";
import { mountInvite, mountLobby } from "./lobby/page";

const auditPage: Page = (root, _app, args) => {
  document.title = "Check a game · Match";
  void mountAudit(root, args[0] ?? null);
  return () => {};
};

export const ROUTES: Record<string, Page> = {
  audit: auditPage,
  lobby: (root, app, args) => mountLobby(root, app, GAMES, args),
  join: (root, app, args) => mountInvite(root, app, GAMES, args),
};
