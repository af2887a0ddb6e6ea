/** Every language the page speaks besides English (the source, en/): registered at start. */

import { register } from ".";
import { DE } from "./de";
import { EL } from "./el";

register("de", DE);
register("el", EL);
