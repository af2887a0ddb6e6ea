/** A game page's own keys (`r` Ready, `h` hint...), never while the player types in a field. */

/** Listen to the page's keys without Ctrl, Meta or Alt, outside text fields; returns the stop. */
export function pageKeys(handler: (ev: KeyboardEvent) => void): () => void {
  const onKey = (ev: KeyboardEvent): void => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable)) return;
    handler(ev);
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
