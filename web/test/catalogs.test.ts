/**
 * The catalogs are whole: every English message has a German and a Greek one, each compiles as
 * ICU MessageFormat in its language, and a translation asks only for values the English one is
 * given (a `{name}` the page never passes would throw at run time). The browser test
 * (tests/web/test_languages.py) walks the pages for the keys a page asks that a catalog lacks.
 */

import { describe, expect, it } from "vitest";
import { IntlMessageFormat } from "intl-messageformat";
import { DE } from "../src/i18n/de";
import { EL } from "../src/i18n/el";
import { EN } from "../src/i18n/en";

type Node = { type: number; value?: unknown; options?: Record<string, { value: Node[] }>; children?: Node[] };

/** The argument names a message uses (plural, select and plain `{x}` alike). */
function argumentsOf(source: string, lang: string): Set<string> {
  const names = new Set<string>();
  const walk = (nodes: Node[]): void => {
    for (const n of nodes) {
      if (typeof n.value === "string" && n.type !== 0 && n.type !== 7) names.add(n.value); // 0 literal, 7 pound
      for (const o of Object.values(n.options ?? {})) walk(o.value);
      if (n.children) walk(n.children);
    }
  };
  walk(new IntlMessageFormat(source, lang).getAst() as unknown as Node[]);
  return names;
}

describe("the catalogs", () => {
  for (const [lang, catalog] of [["de", DE], ["el", EL]] as const) {
    it(`${lang} has every English key and no other`, () => {
      expect(Object.keys(EN).filter((k) => !(k in catalog))).toEqual([]);
      expect(Object.keys(catalog).filter((k) => !(k in EN))).toEqual([]);
    });

    it(`${lang}'s messages compile and use only the English one's values`, () => {
      const bad: string[] = [];
      for (const [key, source] of Object.entries(catalog)) {
        const english = argumentsOf(EN[key] ?? "", "en");
        for (const name of argumentsOf(source, lang)) if (!english.has(name)) bad.push(`${key}: {${name}}`);
      }
      expect(bad).toEqual([]);
    });
  }

  it("compiles every English message", () => {
    for (const source of Object.values(EN)) expect(() => new IntlMessageFormat(source, "en")).not.toThrow();
  });
});
