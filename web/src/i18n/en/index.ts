/** English, the source language: every area's messages, merged. A key is `<area>.<name>`. */

import { COMMON } from "./common";
import { LOBBY } from "./lobby";

export const EN: Readonly<Record<string, string>> = { ...COMMON, ...LOBBY };
