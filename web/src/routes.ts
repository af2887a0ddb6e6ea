/**
 * Pages that are not a game's: `#/<name>/<args...>`. `#/audit/<game_id>` is the auditor's
 * page (web/src/audit/): the ledger's checks of a finished game; `#/audit` asks for an id.
 * The player's pages (web/src/player/): `#/me` (your key, profile, statistics, streak, seats),
 * `#/player/<player_id>` and `#/leaderboard/<game>[/<board>[/<page>]]`.
 * `#/lobby` (and `#/lobby/<game>`) the open tables of every game, `#/join/<code>` an invite
 * link (web/src/lobby/).
 */

import type { Page } from "./app";
import { mountAudit } from "./audit/page";
import { GAMES } from "./games";
import { mountLeaderboard, mountMe, mountProfile } from "./player/pages";
import { t } from "./i18n";
import { rulesPage } from "./rules";
import { mountInvite, mountLobby } from "./lobby/page";

const auditPage: Page = (root, _app, args) => {
  document.title = `${t("common.checkGameTitle")} · Match`;
  void mountAudit(root, args[0] ?? null);
  return () => {};
};

export const ROUTES: Record<string, Page> = {
  audit: auditPage,
  me: (root, app) => mountMe(root, app, GAMES),
  player: (root, app, args) => mountProfile(root, app, GAMES, args[0] ?? ""),
  leaderboard: (root, app, args) => mountLeaderboard(root, app, GAMES, args),
  rules: rulesPage,
  lobby: (root, app, args) => mountLobby(root, app, GAMES, args),
  join: (root, app, args) => mountInvite(root, app, GAMES, args),
};
