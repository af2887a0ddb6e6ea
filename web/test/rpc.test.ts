import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it, vi } from "vitest";
import { command, errorText, refusalCode, retriable, retryAfterMs } from "../src/rpc";

function refusal(code: Code, slug: string, message: string): ConnectError {
  return new ConnectError(message, code, new Headers({ "match-refusal-code": slug }));
}

describe("errors and retries", () => {
  it("reads a refusal's slug and the server's sentence", () => {
    const err = refusal(Code.FailedPrecondition, "paused", "your board is paused");
    expect(refusalCode(err)).toBe("paused");
    expect(errorText(err)).toBe("Your board is paused."); // a sentence, never the slug
    expect(retriable(err)).toBe(false);
    expect(refusalCode(new Error("x"))).toBeNull();
  });

  it("retries what may not have reached the server, and a rate limit after its wait", () => {
    expect(retriable(new ConnectError("down", Code.Unavailable))).toBe(true);
    expect(retriable(new ConnectError("fetch failed", Code.Unknown))).toBe(true);
    expect(retriable(new ConnectError("no", Code.Unauthenticated))).toBe(false);
    const limited = new ConnectError("wait", Code.ResourceExhausted, new Headers({ "retry-after-ms": "350" }));
    expect(retryAfterMs(limited)).toBe(350);
    expect(retriable(limited)).toBe(true);
    expect(retriable(refusal(Code.ResourceExhausted, "hint_limit_reached", "no more hints"))).toBe(false);
  });

  it("sends a retry with the same request id and the seat's token", async () => {
    vi.useFakeTimers();
    try {
      const seen: Record<string, string>[] = [];
      const call = async (headers: Record<string, string>): Promise<string> => {
        seen.push(headers);
        if (seen.length < 3) throw new ConnectError("try again", Code.Unavailable);
        return "ok";
      };
      const done = command(call, "tok");
      await vi.runAllTimersAsync();
      expect(await done).toBe("ok");
      expect(seen.length).toBe(3);
      expect(new Set(seen.map((h) => h["x-request-id"])).size).toBe(1);
      expect(seen[0]?.["x-request-id"]).toMatch(/^[0-9a-f]{32}$/);
      expect(seen[0]?.authorization).toBe("Bearer tok");
    } finally {
      vi.useRealTimers();
    }
  });

  it("gives up at once on a refusal", async () => {
    let calls = 0;
    await expect(command(async () => {
      calls++;
      throw refusal(Code.FailedPrecondition, "tile_face_up", "that tile is up");
    })).rejects.toThrow("that tile is up");
    expect(calls).toBe(1);
  });
});
