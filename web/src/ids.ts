/** Random ids: request ids and the client key (uuid4-shaped, 32 hex digits, unpredictable). */

/** A fresh random uuid4 as 32 hex digits; works on plain http too (no crypto.randomUUID). */
export function randomId(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
