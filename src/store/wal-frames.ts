import { closeSync, openSync, readSync } from "node:fs";

/** How far a store's WAL has grown, in frames (one page each), and how many of them are in the database already. */
export type WalFrames = { mxFrame: number; backfilled: number };

const header = new Uint8Array(104);

/**
 * The WAL's frame counts as its wal-index (the `-shm` file every connection maps) says them,
 * read without a lock or a checkpoint (bun:sqlite has no wal hook): `mxFrame` at byte 16 of the
 * index header, `nBackfill` at byte 96 (the checkpoint info after the header's two copies), both
 * in the machine's byte order (sqlite.org/walformat.html §2.1). A hint, not a transaction's view:
 * null when there is no index (no connection has the store in WAL mode) or it is too short.
 */
export function walFrames(dbFile: string): WalFrames | null {
  let fd: number;
  try {
    fd = openSync(`${dbFile}-shm`, "r");
  } catch {
    return null;
  }
  try {
    if (readSync(fd, header, 0, header.length, 0) < header.length) return null;
  } finally {
    closeSync(fd);
  }
  const view = new DataView(header.buffer);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  return { mxFrame: view.getUint32(16, little), backfilled: view.getUint32(96, little) };
}
