import { expect, test } from "bun:test";
import { globScreen } from "../../src/project/glob-screen.ts";
import { protectedPaths, protection, protectionJudge } from "../../src/project/protected.ts";

// The listing's judge takes shortcuts (globs screened by a text's first and last characters, a
// directory's verdict carried to what it holds, odd forms found from the name alone): it must say
// what `protection`, which matches every glob against every name and the whole relative path, says.

const root = "/home/p/project";
/** config.yaml's globs of every shape: fixed start, fixed end, both, neither, classes, braces, upper case, non-ASCII. */
const EXTRA = [
  "*.secret", "Token*", "[Tt]mp?.log", "{a,B}.txt", "generated", "Ärger*", "*ß", "id_[a-z]*",
  "Secrets/**", "infra/**", "**/keys.json", "conf/**/db.yaml", "docs/*.PEM", "ÖL/**", "a?c/**",
];
const DIRS = [`${root}/.lembas`, `${root}/state/lembas`, "/home/p/.config/lembas"];

/** Names that the built-in and config globs match or nearly match, in several cases, with non-ASCII at either end. */
const NAMES = [
  "a.ts", "README.md", ".env", ".ENV", ".Env.local", ".envrc", "env.ts", "a.env", "id_rsa", "ID_RSA.pub", "Id_Ed25519", "id_dsa2", "iD_ecdsa",
  "server.pem", "Server.PEM", "x.pem.bak", "tls.key", "TLS.KEY", "key", "store.p12", "a.PFX", ".ssh", ".SSH", ".ssh2", ".git", ".GIT", ".gitignore",
  "git", "x.secret", "X.SECRET", "Token.txt", "token", "tmp1.log", "Tmp2.log", "tmp12.log", "a.txt", "B.txt", "b.txt", "generated", "GENERATED",
  "Ärger.md", "ärger.md", "Straße", "STRASSE", "keys.json", "db.yaml", "private", "prod.tf", "K.KEY", "\u212Aey.key", "İd_rsa", "ΣΑΣ", "x", "id_x",
  "id_1", "lembas", ".lembas", "state", "Secrets", "secrets", "infra", "INFRA", "conf", "docs", "ÖL", "öl", "abc", "aXc", ".agent", ".claude",
  ".Claude", "settings.json", "settings.local.json", "SETTINGS.json", "hooks", "Hooks", "run.sh", "é", "a\\b",
];

/** A seeded generator (mulberry32): the same paths every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generated(count: number, seed: number): string[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const depth = 1 + Math.floor(next() * 5);
    const parts = Array.from({ length: depth }, () => pick(NAMES));
    const rel = parts.join("/");
    paths.push(`${root}/${rel}`);
    // Files of one directory one after another, as a listing gives them.
    // and now and then an odd form of one of them (`.`, `..`, a trailing `/`), which only its name makes odd.
    if (depth > 1) for (let j = 0; j < 3; j++) paths.push(`${root}/${parts.slice(0, -1).join("/")}/${next() < 0.1 ? pick(["", ".", ".."]) : pick(NAMES)}`);
  }
  return paths;
}

/** Odd forms and paths outside the root, which the judge sends the long way. */
const ODD = ["./a.ts", "src/../.env", "src/./x", "a//b", "a/b/", "src/.", "src/..", ".lembas", ".lembas/x", "state/lembas", "state/lembasx", "state/lemba"]
  .map((rel) => `${root}/${rel}`)
  .concat(["/home/p/.ssh/id_rsa", "/etc/hosts", root, "/home/p/.config/lembas/config.yaml", "/home/p/.config/lembasx"]);

// With a glob that no fixed character screens (`*/private/*`) every path is looked at; without, most are not.
const EXTRAS = { screened: EXTRA, unscreened: [...EXTRA, "*/private/*"] };

for (const [kind, extra] of Object.entries(EXTRAS)) for (const foldCase of [false, true]) {
  test(`the listing's judge says what protection says over 20,000 generated paths (config globs ${kind}, ${foldCase ? "folding" : "keeping"} case)`, () => {
    const rules = protectedPaths(extra, DIRS, foldCase);
    const paths = [...generated(5_000, foldCase ? 7 : 3), ...ODD];
    const judge = protectionJudge(root, rules);
    const wrong: [string, unknown, unknown][] = [];
    for (const path of paths) {
      const fast = judge(path);
      const slow = protection(path, root, rules);
      if (fast !== slow) wrong.push([path, fast, slow]);
    }
    expect(wrong).toEqual([]);
    // Each kind of verdict was reached, so the paths do reach every shortcut.
    const verdicts = new Map<string, number>();
    for (const path of paths) verdicts.set(String(judge(path)), (verdicts.get(String(judge(path))) ?? 0) + 1);
    expect([...verdicts.keys()].sort()).toEqual(["null", "protected", "secret"]);
  });
}

test("a compiled glob list answers as matching each glob, for every name, with and without folding case", () => {
  const lists = [[...EXTRA, ".env*", "*.pem", "id_rsa*", ".ssh", ".git", ".agent/settings*.json", ".claude/hooks/**"], ["!x"], ["*"], ["**/b*"], []];
  const texts = [...NAMES, ...NAMES.map((name) => `src/${name}`), ...NAMES.map((name) => `${name}/x`), ""];
  for (const patterns of lists) {
    for (const fold of [false, true]) {
      const listed = fold ? patterns.map((pattern) => pattern.toLowerCase()) : patterns;
      const globs = listed.map((pattern) => new Bun.Glob(pattern));
      const screen = globScreen(listed, fold);
      for (const text of texts) {
        const folded = fold ? text.toLowerCase() : text;
        const expected = globs.some((glob) => glob.match(folded));
        expect([patterns, fold, text, screen.matches(text)]).toEqual([patterns, fold, text, expected]);
        expect([patterns, fold, text, screen.matches(`/x/${text}`, 3)]).toEqual([patterns, fold, text, expected]);
      }
    }
  }
});
