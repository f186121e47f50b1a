import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { Db } from "./db.ts";

/** A chat model as discovery found it (model/discovery.ts), and as it is kept here. */
export type DiscoveredModel = {
  id: string;
  provider?: string;
  /** The window the server runs the model with, where it says. */
  contextLength?: number;
  /** Where contextLength was read: "/props", "/api/show num_ctx", "/v1/models max_model_len", … */
  contextFrom?: string;
  /** What the model was trained for, where that differs from the window (Ollama, llama.cpp). */
  trainedContext?: number;
  vision?: boolean;
  tools?: boolean;
  /** The model's family (architecture), where the server says: "qwen2", "llama". */
  family?: string;
};

/** A server's models and its family's id, as kept: the model layer reads the id (model/dialects.ts dialectById). */
export type Listing = { dialect: string; models: DiscoveredModel[] };

/**
 * A connection's kept listing: what its server last told of its models (model/discovery.ts), when,
 * and the failure of a later listing, if one failed since (the models are then the last good ones).
 */
export type StoredListing = Listing & { listedAt: number; failure: { why: string; at: number } | null };

/**
 * The server a listing was had from, and the key (a login's device token) it was asked with: what
 * one account is shown is not another's, so a listing is kept for the two together.
 */
export type ListedServer = { baseUrl: string; key: string | null };

/**
 * Where the model registry keeps what servers told of their models between processes (model/registry.ts).
 */
export type KeptListings = {
  read(connection: string, server: ListedServer): StoredListing | null;
  save(connection: string, server: ListedServer, listing: Listing): void;
  fail(connection: string, server: ListedServer, why: string): void;
};

/**
 * What the base_url column holds: the URL, and after a `#` a hash of the key when there is one. A
 * listing kept for another key (logged in again as another account, or before keys were kept
 * apart) is then no listing, and a lembas of before reads this one as another server's.
 */
function place(server: ListedServer): string {
  if (server.key === null) return server.baseUrl;
  return `${server.baseUrl}#${new Bun.CryptoHasher("sha256").update(server.key).digest("hex").slice(0, 32)}`;
}

type Row = { base_url: string; dialect: string; models: string; listed_at: number; failure: string | null; failed_at: number | null };

/** What a kept listing's models must be; built the first time a listing is not the usual shape (keptModels). */
export const Models = lazily(() =>
  z.array(
    z.object({
      id: z.string().min(1),
      provider: z.string().optional(),
      contextLength: z.number().int().positive().optional(),
      contextFrom: z.string().optional(),
      trainedContext: z.number().int().positive().optional(),
      vision: z.boolean().optional(),
      tools: z.boolean().optional(),
      family: z.string().optional(),
    }),
  ),
);
/** A kept listing is read once a process: without the code zod would compile for its first parse (config/load.ts). */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/**
 * The kept models as `Models` reads them (unknown keys dropped), or null where it refuses them:
 * checked by hand, which the models listing of every start needs (zod's first parse of a schema
 * costs more than the rest of the read: bench/START.md); a model the check does not take whole goes
 * to the schema. test/store/listings-check.test.ts holds the two to the same answers.
 */
export function keptModels(json: unknown): DiscoveredModel[] | null {
  if (!Array.isArray(json)) return null;
  const out: DiscoveredModel[] = [];
  for (const item of json) {
    const model = modelByHand(item);
    if (!model) {
      const checked = Models().safeParse(json, ONCE);
      return checked.success ? checked.data : null;
    }
    out.push(model);
  }
  return out;
}

const MODEL_STRINGS = ["provider", "contextFrom", "family"] as const;
const MODEL_COUNTS = ["contextLength", "trainedContext"] as const;
const MODEL_FLAGS = ["vision", "tools"] as const;

/** One model the hand check takes, in the schema's key order; null for anything else (the schema decides). */
function modelByHand(item: unknown): DiscoveredModel | null {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return null;
  const o = item as Record<string, unknown>;
  if (typeof o.id !== "string" || o.id.length === 0) return null;
  for (const key of MODEL_STRINGS) if (o[key] !== undefined && typeof o[key] !== "string") return null;
  for (const key of MODEL_COUNTS) if (o[key] !== undefined && !(typeof o[key] === "number" && Number.isSafeInteger(o[key]) && o[key] > 0)) return null;
  for (const key of MODEL_FLAGS) if (o[key] !== undefined && typeof o[key] !== "boolean") return null;
  const model: Record<string, unknown> = { id: o.id };
  for (const key of MODEL_KEYS) if (key !== "id" && o[key] !== undefined) model[key] = o[key];
  return model as DiscoveredModel;
}

/** The schema's keys in its order, which its output has. */
const MODEL_KEYS = ["id", "provider", "contextLength", "contextFrom", "trainedContext", "vision", "tools", "family"] as const;

/**
 * The listing kept for `connection`, or null: none, one made for another base URL (the
 * connection was pointed elsewhere) or another key (another account), or one this lembas cannot read.
 */
export function readListing(db: Db, connection: string, server: ListedServer): StoredListing | null {
  const row = db
    .query<Row, [string]>("SELECT base_url, dialect, models, listed_at, failure, failed_at FROM model_listings WHERE connection = ?")
    .get(connection);
  if (!row || row.base_url !== place(server)) return null;
  let json: unknown;
  try {
    json = JSON.parse(row.models);
  } catch {
    return null;
  }
  const models = keptModels(json);
  if (!models) return null;
  const failure = row.failure !== null && row.failed_at !== null ? { why: row.failure, at: row.failed_at } : null;
  return { dialect: row.dialect, models, listedAt: row.listed_at, failure };
}

/** Keeps a good listing (and forgets an earlier failure). */
export function saveListing(db: Db, connection: string, server: ListedServer, listing: Listing, at = Date.now()): void {
  db.query(
    `INSERT INTO model_listings (connection, base_url, dialect, models, listed_at, failure, failed_at) VALUES (?, ?, ?, ?, ?, NULL, NULL)
     ON CONFLICT (connection) DO UPDATE SET base_url = excluded.base_url, dialect = excluded.dialect, models = excluded.models,
       listed_at = excluded.listed_at, failure = NULL, failed_at = NULL`,
  ).run(connection, place(server), listing.dialect, JSON.stringify(listing.models), at);
}

/** Notes that listing failed, keeping the last good models (a connection never listed keeps nothing). */
export function noteListingFailure(db: Db, connection: string, server: ListedServer, why: string, at = Date.now()): void {
  db.query("UPDATE model_listings SET failure = ?, failed_at = ? WHERE connection = ? AND base_url = ?").run(why, at, connection, place(server));
}

/** Forgets what was kept for a connection (a login logged out: its token is forgotten, and what it was shown with it). */
export function forgetListing(db: Db, connection: string): void {
  db.query("DELETE FROM model_listings WHERE connection = ?").run(connection);
}

/** The registry's kept listings over the store. */
export function keptListings(db: Db): KeptListings {
  return {
    read: (connection, server) => readListing(db, connection, server),
    save: (connection, server, listing) => saveListing(db, connection, server, listing),
    fail: (connection, server, why) => noteListingFailure(db, connection, server, why),
  };
}
