import type { Db } from "./db.ts";
import { type Login, listLogins } from "./logins.ts";

type Stamp = { v: number; t: number };

/**
 * The store's logins as a running lembas follows them: a `lembas login` or `lembas logout` in
 * another shell is seen by the service, an editor's `serve --stdio` and the terminal alike. The
 * logins are read again only when the store may have changed since they were last read: a commit
 * by another connection (SQLite's data_version) or by this one (total_changes). That look costs
 * microseconds, so it is taken before each model is resolved, never once a chunk.
 */
export class LoginsWatch {
  private stamp: Stamp | null = null;
  private key = "";
  private logins: readonly Login[] = [];

  constructor(private readonly db: Db) {}

  /** The logins now: the same array while their names, URLs, tokens and protocols are the same. */
  current(): readonly Login[] {
    const stamp = this.db.query<Stamp, []>("SELECT data_version AS v, total_changes() AS t FROM pragma_data_version").get();
    if (stamp && this.stamp && stamp.v === this.stamp.v && stamp.t === this.stamp.t) return this.logins;
    this.stamp = stamp;
    const logins = listLogins(this.db);
    const key = JSON.stringify(logins.map(({ name, url, token, protocols }) => [name, url, token, protocols]));
    if (key !== this.key) {
      this.key = key;
      this.logins = logins;
    }
    return this.logins;
  }
}
