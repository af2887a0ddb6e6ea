import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorText } from "../src/rpc";
import { capital, sentence } from "../src/sentence";

function refusal(slug: string, message: string): ConnectError {
  return new ConnectError(message, Code.FailedPrecondition, new Headers({ "match-refusal-code": slug }));
}

describe("every message a player sees is a sentence", () => {
  it("starts with a capital and ends with a full stop, once", () => {
    expect(capital("you")).toBe("You");
    expect(capital("")).toBe("");
    expect(sentence("this game has already started")).toBe("This game has already started.");
    expect(sentence("  the board is full.  ")).toBe("The board is full.");
    expect(sentence("is that a match?")).toBe("Is that a match?");
    expect(sentence("the link is “Shark”")).toBe("The link is “Shark”.");
    expect(sentence("")).toBe("");
  });

  it("shows a refusal in the server's words, never its slug", () => {
    const text = errorText(refusal("board_full", "the table is full: every seat is taken"));
    expect(text).toBe("The table is full: every seat is taken.");
    expect(text).not.toMatch(/board_full|\(|_/);
    expect(errorText(refusal("already_voted", ""))).toBe("The server refused that.");
    expect(errorText(new Error("something broke"))).toBe("Something broke.");
    expect(errorText(new ConnectError("fetch failed", Code.Unknown))).toBe("The server is not answering; trying again.");
  });
});
