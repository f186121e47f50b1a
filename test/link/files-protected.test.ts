import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Device, startDevice } from "../support/device.ts";
import type { Link } from "../support/instance.ts";

let d: Device;
let link: Link;
beforeAll(async () => {
  d = await startDevice();
  writeFileSync(
    join(d.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\nprotected: ["infra/**"]\n`,
  );
  for (const dir of ["api", "src", "infra", ".ssh"]) mkdirSync(join(d.project, dir), { recursive: true });
  for (const file of [".env", ".envrc", ".env.example", "api/.env.local", "id_rsa", ".ssh/config", "infra/env.tf", "src/env.ts", "src/environment.ts"]) {
    writeFileSync(join(d.project, file), "KEY=1\n");
  }
  link = await d.serve();
});
afterAll(() => d.close());

type Found = { root: string; files: { path: string; kind: string }[] };

describe("_lembas/files/search over the link", () => {
  test('a query for "env" offers no env file, key or .ssh, nor what config.yaml protects: only the ordinary files', async () => {
    const found = (await link.request("_lembas/files/search", { cwd: d.project, query: "env", limit: 50 })) as Found;
    expect(found.files.map((f) => f.path).sort()).toEqual(["src/env.ts", "src/environment.ts"]);
  });

  test("an empty query and a query for the key's name offer none of them either", async () => {
    const recent = (await link.request("_lembas/files/search", { cwd: d.project, query: "", limit: 50 })) as Found;
    expect(recent.files.map((f) => f.path).sort()).toEqual(["src", "src/env.ts", "src/environment.ts"]);
    const keys = (await link.request("_lembas/files/search", { cwd: d.project, query: "rsa" })) as Found;
    expect(keys.files).toEqual([]);
  });
});
