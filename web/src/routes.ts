/**
 * Pages that are not a game's: `#/<name>/<args...>`. `#/audit/<game_id>` is the auditor's
 * page (web/src/audit/): the ledger's checks of a finished game; `#/audit` asks for an id.
 */

import type { Page } from "./app";
import { mountAudit } from "./audit/page";
import { t } from "./i18n";
import { rulesPage } from "./rules";

const auditPage: Page = (root, _app, args) => {
  document.title = `${t("common.checkGameTitle")} · Match`;
  void mountAudit(root, args[0] ?? null);
  return () => {};
};

export const ROUTES: Record<string, Page> = {
  audit: auditPage,
  rules: rulesPage,
};
