/** The el catalog: every area's messages, merged (the same keys as en/). */

import { COMMON } from "./common";
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
import { PLAYER } from "./player";
import { LOBBY } from "./lobby";

export const EL: Readonly<Record<string, string>> = { ...COMMON, ...GAMES, ...HOME, ...CONCENTRATION, ...MATCH_CARDS, ...NUMBER_MATCH, ...MATCH_FIVE, ...AUDIT, ...RULES, ...KIT, ...RACE, ...REFUSALS, ...PLAYER, ...LOBBY };
