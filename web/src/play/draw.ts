/** Drawing a game's page: many changes in one task, one draw after them. */

/** `draw` wrapped so that calling it again and again in one task draws once, in a microtask. */
export function batched(draw: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      draw();
    });
  };
}
