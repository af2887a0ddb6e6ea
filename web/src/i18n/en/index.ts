/** English, the source language: every area's messages, merged. A key is `<area>.<name>`. */

import { COMMON } from "./common";
import { PLAYER } from "./player";
import { GAMES } from "./games";
import { HOME } from "./home";
import { CONCENTRATION } from "./concentration";
import { MATCH_CARDS } from "./match-cards";
import { NUMBER_MATCH } from "./number-match";
import { MATCH_FIVE } from "./match-5";
import { AUDIT } from "./audit";
import { RULES } from "./rules";
import { KIT } from "./kit";
import { RACE } from "./race";
import { REFUSALS } from "./refusals";
import { LOBBY } from "./lobby";

export const EN: Readonly<Record<string, string>> = {
  ...COMMON, ...GAMES, ...HOME, ...CONCENTRATION, ...MATCH_CARDS, ...NUMBER_MATCH, ...MATCH_FIVE,
  ...AUDIT, ...RULES, ...KIT, ...RACE, ...REFUSALS, ...PLAYER, ...LOBBY,
};
