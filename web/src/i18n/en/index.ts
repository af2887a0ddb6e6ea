/** English, the source language: every area's messages, merged. A key is `<area>.<name>`. */

import { COMMON } from "./common";

export const EN: Readonly<Record<string, string>> = { ...COMMON };
