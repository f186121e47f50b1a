import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";

/**
 * Names that say one thing: a file's name is not shared by another in src/ (one listed below aside),
 * a test file is named after what it tests (never after the review or attack round that wrote it),
 * and the words retired for a concept that has its own name stay retired.
 */
const ROOT = resolve(import.meta.dir, "../..");
const SRC = join(ROOT, "src");

function files(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), ending) : e.name.endsWith(ending) ? [join(dir, e.name)] : [],
  );
}

/**
 * Base names more than one file of src/ has, each a different thing in its own folder (config/errors.ts
 * and model/errors.ts; one subcommand's file in cli/ beside the module it prints, or beside the terminal's command of the same name). A new file takes a
 * name of its own; a name listed here leaves the list once only one file has it.
 */
const SHARED_BASE_NAMES: readonly string[] = [
  "agent.ts",
  "cards.ts",
  "client.ts",
  "commands.ts",
  "deletes.ts",
  "discovery.ts",
  "doctor.ts",
  "errors.ts",
  "files.ts",
  "hooks.ts",
  "index.ts",
  "keys.ts",
  "library.ts",
  "lines.ts",
  "login.ts",
  "logout.ts",
  "main.ts",
  "models.ts",
  "paths.ts",
  "permission.ts",
  "permissions.ts",
  "personalization.ts",
  "prompt.ts",
  "result.ts",
  "sessions.ts",
  "settings.ts",
  "share-cards.ts",
  "share-choices.ts",
  "share.ts",
  "status.ts",
  "stdio.ts",
  "trust.ts",
  "undo.ts",
  "usage.ts",
];

/** Each base name of src/'s modules, with the files that have it. */
function byBaseName(): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const file of files(SRC, ".ts")) {
    const name = basename(file);
    names.set(name, [...(names.get(name) ?? []), relative(ROOT, file)]);
  }
  return names;
}

/** A review or attack round's name: review.test.ts, review2, share-review, share-attack, attack-model, command-attacks. */
const ROUND = /^(review|attack|round)s?\d*$|-(review|attack|round)s?\d*$|^(attack|round)s?\d*-/;

/**
 * Words that named two concepts, each now with its own: a turn is admitted and run through its
 * ticket, a link owns a session, a process holds one ("claim" said all three); what says where a
 * session is held is a locator, and only service/router.ts routes ("Router" said both).
 */
const RETIRED: readonly { word: RegExp; say: string }[] = [
  { word: /\bclaim\w*|\w+Claims?\b/i, say: "admit and ticket (a turn), own (a link's session), hold (a process's session)" },
  { word: /\b(Session|Service|process)Router\b|\brouterOf\b/, say: "SessionLocator, ServiceLocator, processLocator, locatorOf" },
];

describe("names", () => {
  test("no two modules of src/ share a base name, but for the ones listed", () => {
    const shared = [...byBaseName().entries()].filter(([name, paths]) => paths.length > 1 && !SHARED_BASE_NAMES.includes(name));
    expect(shared.map(([, paths]) => paths.join(" and "))).toEqual([]);
  });

  test("every base name listed as shared is still shared: one that is no longer leaves the list", () => {
    const names = byBaseName();
    expect(SHARED_BASE_NAMES.filter((name) => (names.get(name)?.length ?? 0) < 2)).toEqual([]);
  });

  test("no test file is named after a review or attack round", () => {
    const named = files(join(ROOT, "test"), ".test.ts").filter((file) => ROUND.test(basename(file, ".test.ts")));
    expect(named.map((file) => relative(ROOT, file))).toEqual([]);
  });

  test("the words retired for a concept with its own name appear nowhere in src/ or docs/", () => {
    const found: string[] = [];
    for (const file of [...files(SRC, ".ts"), ...files(join(ROOT, "docs"), ".md")]) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const { word, say } of RETIRED) {
            const hit = word.exec(line);
            if (hit) found.push(`${relative(ROOT, file)}:${i + 1}: "${hit[0]}" (say ${say})`);
          }
        });
    }
    expect(found).toEqual([]);
  });
});
