/**
 * The referee's clock as the page estimates it (a port of libs/match_client's clock.py).
 *
 * Every server time (an event's `server_time_ms`, a snapshot's, a command's counters') was
 * taken before the message reached us, so `server - localAtReceipt` is a lower bound of the
 * offset between the clocks; keeping the largest bound seen gives the latest event's referee
 * time plus the local time elapsed since it arrived, never ahead of the server. `localMs` is a
 * monotonic clock (performance.now() in the page), so changing the computer's clock changes
 * nothing.
 */
export class ServerClock {
  private offset: number | null = null;

  constructor(private readonly localMs: () => number = () => performance.now()) {}

  get synced(): boolean {
    return this.offset !== null;
  }

  /** Note a server time that was just received (`localMs`: when, by our clock). */
  observe(serverMs: number, localMs?: number): void {
    if (!(serverMs > 0)) return;
    const bound = serverMs - (localMs ?? this.localMs());
    if (this.offset === null || bound > this.offset) this.offset = bound;
  }

  /** The server's clock now, never ahead of it (0 until a time was observed). */
  now(): number {
    return this.offset === null ? 0 : this.localMs() + this.offset;
  }
}
