import { z } from "zod";
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

export const DiscoveredModel = z.object({
  id: z.string().min(1),
  provider: z.string().optional(),
  contextLength: z.number().int().positive().optional(),
  contextFrom: z.string().optional(),
  trainedContext: z.number().int().positive().optional(),
  vision: z.boolean().optional(),
  tools: z.boolean().optional(),
  family: z.string().optional(),
});

/** A server's models and its family's id, as kept: the model layer reads the id (model/dialects.ts dialectById). */
export type Listing = { dialect: string; models: DiscoveredModel[] };

/**
 * A connection's kept listing: what its server last told of its models (model/discovery.ts), when,
 * and the failure of a later listing, if one failed since (the models are then the last good ones).
 */
export type StoredListing = Listing & { listedAt: number; failure: { why: string; at: number } | null };

/**
 * Where the model registry keeps what servers told of their models between processes (model/registry.ts).
 */
export type KeptListings = {
  read(connection: string, baseUrl: string): StoredListing | null;
  save(connection: string, baseUrl: string, listing: Listing): void;
  fail(connection: string, baseUrl: string, why: string): void;
};

type Row = { base_url: string; dialect: string; models: string; listed_at: number; failure: string | null; failed_at: number | null };

const Models = z.array(DiscoveredModel);
/** A kept listing is read once a process: without the code zod would compile for its first parse (config/load.ts). */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/**
 * The listing kept for `connection`, or null: none, one made for another base URL (the
 * connection was pointed elsewhere), or one this lembas cannot read.
 */
export function readListing(db: Db, connection: string, baseUrl: string): StoredListing | null {
  const row = db
    .query<Row, [string]>("SELECT base_url, dialect, models, listed_at, failure, failed_at FROM model_listings WHERE connection = ?")
    .get(connection);
  if (!row || row.base_url !== baseUrl) return null;
  let json: unknown;
  try {
    json = JSON.parse(row.models);
  } catch {
    return null;
  }
  const models = Models.safeParse(json, ONCE);
  if (!models.success) return null;
  const failure = row.failure !== null && row.failed_at !== null ? { why: row.failure, at: row.failed_at } : null;
  return { dialect: row.dialect, models: models.data, listedAt: row.listed_at, failure };
}

/** Keeps a good listing (and forgets an earlier failure). */
export function saveListing(db: Db, connection: string, baseUrl: string, listing: Listing, at = Date.now()): void {
  db.query(
    `INSERT INTO model_listings (connection, base_url, dialect, models, listed_at, failure, failed_at) VALUES (?, ?, ?, ?, ?, NULL, NULL)
     ON CONFLICT (connection) DO UPDATE SET base_url = excluded.base_url, dialect = excluded.dialect, models = excluded.models,
       listed_at = excluded.listed_at, failure = NULL, failed_at = NULL`,
  ).run(connection, baseUrl, listing.dialect, JSON.stringify(listing.models), at);
}

/** Notes that listing failed, keeping the last good models (a connection never listed keeps nothing). */
export function noteListingFailure(db: Db, connection: string, baseUrl: string, why: string, at = Date.now()): void {
  db.query("UPDATE model_listings SET failure = ?, failed_at = ? WHERE connection = ? AND base_url = ?").run(why, at, connection, baseUrl);
}

/** The registry's kept listings over the store. */
export function keptListings(db: Db): KeptListings {
  return {
    read: (connection, baseUrl) => readListing(db, connection, baseUrl),
    save: (connection, baseUrl, listing) => saveListing(db, connection, baseUrl, listing),
    fail: (connection, baseUrl, why) => noteListingFailure(db, connection, baseUrl, why),
  };
}
