/**
 * The lobby's Connect edge: one transport (base URL = this page's origin), a client per
 * service, and the metadata every call carries: `x-client-key` always, `authorization: Bearer
 * <token>` for a seat, `x-request-id` for a command (fresh per command, the same on a retry).
 */

import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LobbyService } from "./gen/match/v1/lobby_pb";
import { MatchRaceService } from "./gen/match/v1/race_service_pb";
import { randomId } from "./ids";
import { sentence } from "./sentence";

export interface Api {
  readonly transport: Transport;
  readonly lobby: Client<typeof LobbyService>;
  readonly race: Client<typeof MatchRaceService>;
}

export function makeApi(baseUrl: string, clientKey: string): Api {
  const withKey: Interceptor = (next) => (req) => {
    req.header.set("x-client-key", clientKey);
    return next(req);
  };
  const transport = createConnectTransport({ baseUrl, interceptors: [withKey] });
  return { transport, lobby: createClient(LobbyService, transport), race: createClient(MatchRaceService, transport) };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The rules' slug of a refusal (`match-refusal-code`), or null for any other error. */
export function refusalCode(err: unknown): string | null {
  return err instanceof ConnectError ? err.metadata.get("match-refusal-code") : null;
}

/** `retry-after-ms` of a rate limit, or null. */
export function retryAfterMs(err: unknown): number | null {
  if (!(err instanceof ConnectError)) return null;
  const v = err.metadata.get("retry-after-ms");
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/** The server's words for an error as a sentence for a person, never the refusal's slug. */
export function errorText(err: unknown): string {
  if (err instanceof ConnectError) {
    if (err.code === Code.Unknown || err.code === Code.Unavailable) {
      if (!err.rawMessage || /fetch|network|failed to/i.test(err.rawMessage)) return "The server is not answering; trying again.";
    }
    return sentence(err.rawMessage) || "The server refused that.";
  }
  return sentence(err instanceof Error ? err.message : String(err)) || "Something went wrong.";
}

/** An error whose command may not have reached the server: worth sending again, same id. */
export function retriable(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return true; // a network failure before any answer
  if (refusalCode(err) !== null) return false; // the rules answered
  if (err.code === Code.ResourceExhausted) return retryAfterMs(err) !== null; // a rate limit
  return err.code === Code.Unavailable || err.code === Code.Unknown || err.code === Code.DeadlineExceeded || err.code === Code.Internal;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Backoff before attempt `n` (0-based) of a retry: 0.5 s, 1 s, 2 s, ... up to 8 s, jittered. */
export function backoffMs(n: number): number {
  const base = Math.min(500 * 2 ** n, 8_000);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/**
 * Run a command with one request id, sending it again with the same id while its answer may
 * have been lost (network, UNAVAILABLE, a deadline) or a rate limit asks to wait: the referee
 * answers a request id it has seen with its first answer and applies nothing twice.
 */
export async function command<T>(
  call: (headers: Record<string, string>) => Promise<T>,
  token?: string,
  attempts = 4,
): Promise<T> {
  const headers: Record<string, string> = { "x-request-id": randomId(), ...(token ? bearer(token) : {}) };
  for (let n = 0; ; n++) {
    try {
      return await call(headers);
    } catch (err) {
      if (n + 1 >= attempts || !retriable(err)) throw err;
      await sleep(retryAfterMs(err) ?? backoffMs(n));
    }
  }
}
