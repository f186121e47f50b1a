import { describe, expect, test } from "bun:test";
import { rank } from "../../src/project/fuzzy.ts";
import { type Prepared, prepare } from "../../src/project/prepared.ts";

/** Prepares files (and directories, given with a trailing `/`). */
function list(entries: string[]): Prepared {
  const paths = entries.map((e) => e.replace(/\/$/, ""));
  return prepare(paths, Uint8Array.from(entries, (e) => (e.endsWith("/") ? 1 : 0)));
}

function search(prep: Prepared, query: string, limit = 10, boost?: Map<string, number>): string[] {
  prep.trail = [];
  return rank(prep, query, { limit, boost, maxBoost: 10 }).map((r) => prep.paths[r.id] ?? "");
}

describe("ranking", () => {
  test("a basename match beats a path match, even a shorter one", () => {
    expect(search(list(["kernel/a.ts", "some/deep/folder/kernel_util.ts"]), "kernel")).toEqual(["some/deep/folder/kernel_util.ts", "kernel/a.ts"]);
  });

  test("matches at segment starts and word boundaries beat matches mid-word", () => {
    expect(search(list(["src/fabric.ts", "src/foo_bar.ts"]), "fb")[0]).toBe("src/foo_bar.ts");
    expect(search(list(["src/fabric.ts", "src/FooBar.ts"]), "fb")[0]).toBe("src/FooBar.ts");
    expect(search(list(["src/rabbit/x.ts", "src/bar/baz/x.ts"]), "bbx")[0]).toBe("src/bar/baz/x.ts");
  });

  test("a contiguous run beats the same characters scattered", () => {
    expect(search(list(["src/xpaxrsxe.ts", "src/xparserq.ts"]), "parse")).toEqual(["src/xparserq.ts", "src/xpaxrsxe.ts"]);
  });

  test("a basename starting with the query comes first, the exact name before longer ones", () => {
    const prep = list(["src/domain.ts", "src/maintenance.ts", "a/b/c/main.ts", "m/a/i/n.ts", "src/main/other.ts"]);
    expect(search(prep, "main")).toEqual(["a/b/c/main.ts", "src/maintenance.ts", "src/domain.ts", "src/main/other.ts", "m/a/i/n.ts"]);
  });

  test("shorter paths first among equal matches", () => {
    expect(search(list(["a/b/c/d/util.ts", "a/util.ts", "a/b/util.ts"]), "util")).toEqual(["a/util.ts", "a/b/util.ts", "a/b/c/d/util.ts"]);
  });

  test("smart case: lowercase matches any case, an uppercase letter makes the query case-sensitive", () => {
    const prep = list(["src/Foo.ts", "src/foo.ts", "src/fOO.ts"]);
    expect(search(prep, "foo").sort()).toEqual(["src/Foo.ts", "src/fOO.ts", "src/foo.ts"]);
    expect(search(prep, "Foo")).toEqual(["src/Foo.ts"]);
    expect(search(prep, "OO")).toEqual(["src/fOO.ts"]);
  });

  test("a query with / matches across segments, the part after the last / in the basename", () => {
    const prep = list(["src/components/Button.tsx", "src/components/", "src/", "docs/comp-notes/btn.md", "src/lib/button/index.ts"]);
    expect(search(prep, "src/comp/btn")[0]).toBe("src/components/Button.tsx");
    expect(search(prep, "comp/")[0]).toBe("src/components");
    expect(search(prep, "button/index")).toEqual(["src/lib/button/index.ts"]);
  });

  test("paths beyond ASCII match, case-insensitively unless the query has an uppercase letter", () => {
    const prep = list(["docs/Ärger.md", "docs/ärger-2.md", "src/naïve.ts"]);
    expect(search(prep, "ärg").sort()).toEqual(["docs/Ärger.md", "docs/ärger-2.md"]);
    expect(search(prep, "Är")).toEqual(["docs/Ärger.md"]);
    expect(search(prep, "naï")).toEqual(["src/naïve.ts"]);
  });

  test("characters out of order do not match", () => {
    expect(search(list(["src/abc.ts"]), "cba")).toEqual([]);
  });

  test("a boost orders equal matches but does not lift a poorer kind of match", () => {
    const prep = list(["a/util.ts", "b/util.ts", "c/my-util-x.ts"]);
    expect(search(prep, "util", 10, new Map([["b/util.ts", 4]]))).toEqual(["b/util.ts", "a/util.ts", "c/my-util-x.ts"]);
    expect(search(prep, "util", 10, new Map([["c/my-util-x.ts", 10]]))[2]).toBe("c/my-util-x.ts");
  });
});

describe("the search", () => {
  const words = ["user", "service", "button", "index", "config", "loader", "parser", "test", "api", "view", "Main", "Header"];
  const exts = ["ts", "tsx", "md", "json"];
  const random = seeded(7);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const paths = Array.from({ length: 3000 }, (_, i) => {
    const dirs = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(words).toLowerCase());
    const name = Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(words)).join(pick(["", "-", "_"]));
    return `${dirs.join("/")}/${name}${i % 7}.${pick(exts)}`;
  });
  const queries = ["u", "us", "usr", "usrsvc", "btn", "index.ts", "cfg/ldr", "Main", "api/", "te", "parser", "hdr", "x", "/view", "user/svc1", "UsrSvc", "apiviewmain"];

  test("finds the same best entries as scoring every entry (its shortcuts lose nothing)", () => {
    const prep = list([...new Set(paths)]);
    for (const query of queries) {
      const all = search(prep, query, 100_000);
      expect(search(prep, query, 15)).toEqual(all.slice(0, 15));
    }
  });

  test("typing a query character by character gives what searching it afresh does", () => {
    const prep = list([...new Set(paths)]);
    for (const query of ["usrsvc", "index.ts", "cfg/ldr", "MainHeader", "mainHe", "api/Vi", "api/vi"]) {
      prep.trail = [];
      for (let n = 1; n <= query.length; n++) {
        const typed = rank(prep, query.slice(0, n), { limit: 10 }).map((r) => prep.paths[r.id]);
        const fresh = list([...new Set(paths)]);
        expect(typed).toEqual(search(fresh, query.slice(0, n)));
      }
    }
  });
});

describe("a query typed after another", () => {
  // Thirty basenames start with "ab": they fill the heap, and the passes after the first are not needed.
  const paths = [...Array.from({ length: 30 }, (_, i) => `p/abq${i}.ts`), "xaxb/zed/cab.ts", "docs/zzz.md"];

  test("hands on the rows of the passes it did not need, unread, to the query typed after it", () => {
    const prep = list(paths);
    prep.trail = [];
    rank(prep, "a", { limit: 10 });
    rank(prep, "ab", { limit: 10 });
    const [a, ab] = prep.trail;
    expect(ab?.query).toBe("ab");
    expect(a?.kept.later.length).toBeGreaterThan(0);
    expect(ab?.kept.later).toEqual(a?.kept.later ?? []);
    a?.kept.later.forEach((rows, i) => expect(ab?.kept.later[i]).toBe(rows));
  });

  test("still finds a handed-on row whose match moved from its basename to its path", () => {
    const prep = list(paths);
    prep.trail = [];
    rank(prep, "ab", { limit: 10 });
    const typed = rank(prep, "abz", { limit: 10 }).map((r) => prep.paths[r.id]);
    expect(typed).toEqual(["xaxb/zed/cab.ts"]);
    expect(typed).toEqual(search(list(paths), "abz"));
  });
});

function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
}
