import { z } from "zod";
import { dialectById } from "../model/dialects.ts";
import { type Discovery, DiscoveredModel } from "../model/discovery.ts";
import type { KeptListings } from "../model/registry.ts";
import type { Db } from "./db.ts";

/**
 * A connection's kept listing: what its server last told of its models (discovery.ts), when, and
 * the failure of a later listing, if one failed since (the models are then the last good ones).
 */
export type StoredListing = Discovery & { listedAt: number; failure: { why: string; at: number } | null };

type Row = { base_url: string; dialect: string; models: string; listed_at: number; failure: string | null; failed_at: number | null };

const Models = z.array(DiscoveredModel);

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
  const models = Models.safeParse(json);
  if (!models.success) return null;
  const failure = row.failure !== null && row.failed_at !== null ? { why: row.failure, at: row.failed_at } : null;
  return { dialect: dialectById(row.dialect).id, models: models.data, listedAt: row.listed_at, failure };
}

/** Keeps a good listing (and forgets an earlier failure). */
export function saveListing(db: Db, connection: string, baseUrl: string, listing: Discovery, at = Date.now()): void {
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

/** The registry's KeptListings (model/registry.ts) over the store. */
export function keptListings(db: Db): KeptListings {
  return {
    read: (connection, baseUrl) => readListing(db, connection, baseUrl),
    save: (connection, baseUrl, listing) => saveListing(db, connection, baseUrl, listing),
    fail: (connection, baseUrl, why) => noteListingFailure(db, connection, baseUrl, why),
  };
}
