/**
 * Every message a player sees is a sentence: it starts with a capital letter and ends with a
 * full stop (or its own ? or !). The server's refusals are written for people but start in
 * lower case ("your board is paused"), to be quoted inside other sentences; their slugs
 * (`board_full`) are for programs and never shown.
 */

/** `text` with its first letter in upper case. */
export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `text` as one sentence: trimmed, a capital first, a full stop last (unless it has . ? or !). */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  return capital(t) + (/[.?!…]["”')]*$/.test(t) ? "" : ".");
}
