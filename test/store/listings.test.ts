import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { forgetListing, noteListingFailure, readListing, saveListing } from "../../src/store/listings.ts";
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
const A = { baseUrl: URL_A, key: null };

test("a listing is kept per connection with its family and models, and read back as it was", () => {
  const models = [{ id: "qwen2.5-coder:7b", contextLength: 16384, contextFrom: "/api/show parameters num_ctx", trainedContext: 32768, tools: true, family: "qwen2" }];
  saveListing(db, "local", A, { dialect: "ollama", models }, 1000);
  expect(readListing(db, "local", A)).toEqual({ dialect: "ollama", models, listedAt: 1000, failure: null });
  expect(readListing(db, "other", A)).toBeNull();
});

test("a listing that fails keeps the last good models beside the failure; a good one clears it", () => {
  saveListing(db, "local", A, { dialect: "generic", models: [{ id: "m" }] }, 1000);
  noteListingFailure(db, "local", A, "HTTP 500", 2000);
  expect(readListing(db, "local", A)).toEqual({ dialect: "generic", models: [{ id: "m" }], listedAt: 1000, failure: { why: "HTTP 500", at: 2000 } });
  saveListing(db, "local", A, { dialect: "generic", models: [{ id: "n" }] }, 3000);
  expect(readListing(db, "local", A)).toEqual({ dialect: "generic", models: [{ id: "n" }], listedAt: 3000, failure: null });
});

test("a connection pointed at another server does not use what the old one listed", () => {
  saveListing(db, "local", A, { dialect: "ollama", models: [{ id: "m" }] });
  expect(readListing(db, "local", { baseUrl: "http://127.0.0.1:8080/v1", key: null })).toBeNull();
  noteListingFailure(db, "local", { baseUrl: "http://127.0.0.1:8080/v1", key: null }, "down");
  expect(readListing(db, "local", A)?.failure).toBeNull();
});

test("a listing had with one key (a login's token) is none for another key, nor for none; forgotten, it is none", () => {
  const mine = { baseUrl: URL_A, key: "token-of-account-a" };
  saveListing(db, "inst", mine, { dialect: "lembas", models: [{ id: "a-model" }] });
  expect(readListing(db, "inst", mine)?.models).toEqual([{ id: "a-model" }]);
  expect(readListing(db, "inst", { baseUrl: URL_A, key: "token-of-account-b" })).toBeNull();
  expect(readListing(db, "inst", A)).toBeNull();
  noteListingFailure(db, "inst", { baseUrl: URL_A, key: "token-of-account-b" }, "HTTP 401");
  expect(readListing(db, "inst", mine)?.failure).toBeNull();
  forgetListing(db, "inst");
  expect(readListing(db, "inst", mine)).toBeNull();
});

test("kept models this lembas cannot read are no listing, not a crash", () => {
  saveListing(db, "local", A, { dialect: "ollama", models: [{ id: "m" }] });
  const raw = new Database(file);
  raw.query("UPDATE model_listings SET models = ? WHERE connection = 'local'").run('[{"id": 7}]');
  raw.close();
  expect(readListing(db, "local", A)).toBeNull();
});
