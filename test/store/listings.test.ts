import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { noteListingFailure, readListing, saveListing } from "../../src/store/listings.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let db: Db;
let file: string;
beforeEach(() => {
  box = sandbox();
  file = join(box.stateDir, "lembas.db");
  db = openDb(file);
});
afterEach(() => {
  db.close();
  box.cleanup();
});

const URL_A = "http://127.0.0.1:11434/v1";

test("a listing is kept per connection with its family and models, and read back as it was", () => {
  const models = [{ id: "qwen2.5-coder:7b", contextLength: 16384, contextFrom: "/api/show parameters num_ctx", trainedContext: 32768, tools: true, family: "qwen2" }];
  saveListing(db, "local", URL_A, { dialect: "ollama", models }, 1000);
  expect(readListing(db, "local", URL_A)).toEqual({ dialect: "ollama", models, listedAt: 1000, failure: null });
  expect(readListing(db, "other", URL_A)).toBeNull();
});

test("a listing that fails keeps the last good models beside the failure; a good one clears it", () => {
  saveListing(db, "local", URL_A, { dialect: "generic", models: [{ id: "m" }] }, 1000);
  noteListingFailure(db, "local", URL_A, "HTTP 500", 2000);
  expect(readListing(db, "local", URL_A)).toEqual({ dialect: "generic", models: [{ id: "m" }], listedAt: 1000, failure: { why: "HTTP 500", at: 2000 } });
  saveListing(db, "local", URL_A, { dialect: "generic", models: [{ id: "n" }] }, 3000);
  expect(readListing(db, "local", URL_A)).toEqual({ dialect: "generic", models: [{ id: "n" }], listedAt: 3000, failure: null });
});

test("a connection pointed at another server does not use what the old one listed", () => {
  saveListing(db, "local", URL_A, { dialect: "ollama", models: [{ id: "m" }] });
  expect(readListing(db, "local", "http://127.0.0.1:8080/v1")).toBeNull();
  noteListingFailure(db, "local", "http://127.0.0.1:8080/v1", "down");
  expect(readListing(db, "local", URL_A)?.failure).toBeNull();
});

test("kept models this lembas cannot read are no listing, not a crash", () => {
  saveListing(db, "local", URL_A, { dialect: "ollama", models: [{ id: "m" }] });
  const raw = new Database(file);
  raw.query("UPDATE model_listings SET models = ? WHERE connection = 'local'").run('[{"id": 7}]');
  raw.close();
  expect(readListing(db, "local", URL_A)).toBeNull();
});
