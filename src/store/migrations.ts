/**
 * The database schema, one entry a version. Append only: a released migration never changes.
 * Several processes (the service and terminals) open the same file, so each runs inside
 * BEGIN IMMEDIATE and re-checks what is applied.
 */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  root        TEXT NOT NULL,
  cwd         TEXT NOT NULL,
  title       TEXT NOT NULL DEFAULT '',
  mode        TEXT NOT NULL,
  model       TEXT,
  effort      TEXT NOT NULL,
  origin      TEXT NOT NULL DEFAULT 'terminal',
  summary     TEXT,
  summary_seq INTEGER,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX sessions_updated ON sessions(updated_at);
CREATE INDEX sessions_root ON sessions(root);

CREATE TABLE messages (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  role       TEXT NOT NULL,
  body       TEXT NOT NULL,
  turn_id    TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);

CREATE TABLE turns (
  session_id TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
  answer     TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, turn_id)
);
CREATE INDEX turns_seq ON turns(session_id, seq);
CREATE INDEX turns_updated ON turns(updated_at);

CREATE TABLE holds (
  session_id TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  pid        INTEGER NOT NULL,
  since      INTEGER NOT NULL,
  heartbeat  INTEGER NOT NULL
);

CREATE TABLE pending_deletes (
  session_id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);

CREATE TABLE client_marks (
  session_id TEXT NOT NULL,
  login      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, login)
);

CREATE TABLE files (
  root  TEXT NOT NULL,
  path  TEXT NOT NULL,
  kind  TEXT NOT NULL CHECK (kind IN ('file', 'dir')),
  mtime INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (root, path)
) WITHOUT ROWID;

CREATE TABLE frecency (
  root      TEXT NOT NULL,
  path      TEXT NOT NULL,
  score     REAL NOT NULL,
  last_used INTEGER NOT NULL,
  PRIMARY KEY (root, path)
) WITHOUT ROWID;

CREATE TABLE logins (
  name       TEXT PRIMARY KEY,
  url        TEXT NOT NULL UNIQUE,
  token      TEXT NOT NULL,
  protocols  TEXT NOT NULL,
  position   INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE trusted (
  path       TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);
`,
  },
  {
    version: 2,
    sql: `
CREATE TABLE undo_files (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_id    TEXT NOT NULL,
  path       TEXT NOT NULL,
  existed    INTEGER NOT NULL,
  content    BLOB,
  mode       INTEGER,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, turn_id, path)
);
`,
  },
  {
    // A delete made with no link up is kept for every login, and each link's client is told once.
    version: 3,
    sql: `
DROP TABLE pending_deletes;
CREATE TABLE pending_deletes (
  session_id TEXT NOT NULL,
  login      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, login)
);
`,
  },
  {
    // logins.providers: the providers a login's /v1/models listed last, so the short form of a
    // model ref stays with its login while that list cannot be had (NULL: never listed).
    version: 4,
    sql: `
ALTER TABLE logins ADD COLUMN providers TEXT;
`,
  },
  {
    // Undo says why a file cannot be restored, and restores only files still as the turn left them.
    version: 5,
    sql: `
ALTER TABLE undo_files ADD COLUMN missing_why TEXT;
ALTER TABLE undo_files ADD COLUMN after_existed INTEGER;
ALTER TABLE undo_files ADD COLUMN after_size INTEGER;
ALTER TABLE undo_files ADD COLUMN after_mtime INTEGER;
ALTER TABLE undo_files ADD COLUMN after_hash TEXT;
`,
  },
  {
    // refused_why: undo leaves the file alone whatever it holds (moved in from outside, changed by
    // two commands at once). undo_turns: a turn whose undo data was dropped or never recorded, and why.
    version: 6,
    sql: `
ALTER TABLE undo_files ADD COLUMN refused_why TEXT;
CREATE TABLE undo_turns (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_id    TEXT NOT NULL,
  why        TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, turn_id)
);
`,
  },
  {
    // What the person at a terminal said of sharing a session (/share: by name; /unshare: stopped),
    // kept with the session so that a resume does what they said.
    version: 7,
    sql: `
CREATE TABLE share_choices (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  choice     TEXT NOT NULL CHECK (choice IN ('by-name', 'stopped')),
  updated_at INTEGER NOT NULL
);
`,
  },
  {
    // What each connection's (or login's) server last told of its models, so that a turn starts
    // from it instead of waiting on /v1/models; a listing that fails keeps the last good one.
    version: 8,
    sql: `
CREATE TABLE model_listings (
  connection TEXT PRIMARY KEY,
  base_url   TEXT NOT NULL,
  dialect    TEXT NOT NULL,
  models     TEXT NOT NULL,
  listed_at  INTEGER NOT NULL,
  failure    TEXT,
  failed_at  INTEGER
);
`,
  },
  {
    // MCP servers: a project's .mcp.json approved by the person, per file and content hash (a file
    // that changes is asked about again; one changed back is not); and whether a login's instance
    // serves /mcp, as a probe found it (discovery does not say).
    version: 9,
    sql: `
CREATE TABLE mcp_approvals (
  path        TEXT NOT NULL,
  hash        TEXT NOT NULL,
  approved_at INTEGER NOT NULL,
  PRIMARY KEY (path, hash)
);

CREATE TABLE instance_mcp (
  url       TEXT PRIMARY KEY,
  serves    INTEGER NOT NULL CHECK (serves IN (0, 1)),
  probed_at INTEGER NOT NULL
);
`,
  },
  {
    // The library: documents a person added, their chunks with one vector each (Float32, L2-normalised),
    // and an FTS5 index over the chunks' text. library_state.generation changes with every write, so a
    // process that holds the vectors in memory knows when to read them again.
    version: 10,
    sql: `
CREATE TABLE library_documents (
  id        INTEGER PRIMARY KEY,
  path      TEXT NOT NULL UNIQUE,
  hash      TEXT NOT NULL,
  mtime     INTEGER NOT NULL,
  size      INTEGER NOT NULL,
  model     TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  chunks    INTEGER NOT NULL,
  added_at  INTEGER NOT NULL
);
CREATE TABLE library_chunks (
  id          INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES library_documents(id) ON DELETE CASCADE,
  start_line  INTEGER NOT NULL,
  end_line    INTEGER NOT NULL,
  text        TEXT NOT NULL,
  vector      BLOB NOT NULL
);
CREATE INDEX library_chunks_document ON library_chunks(document_id);
CREATE VIRTUAL TABLE library_fts USING fts5(text, content='library_chunks', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER library_chunks_ai AFTER INSERT ON library_chunks BEGIN
  INSERT INTO library_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER library_chunks_ad AFTER DELETE ON library_chunks BEGIN
  INSERT INTO library_fts(library_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE library_state (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  generation INTEGER NOT NULL
);
INSERT INTO library_state (id, generation) VALUES (1, 0);
`,
  },
  {
    // What each login's instance last said of its personalization (GET /v1/me/personalization),
    // so that a session starts from it instead of waiting on the network.
    version: 11,
    sql: `
CREATE TABLE personalization (
  url     TEXT PRIMARY KEY,
  body    TEXT NOT NULL,
  read_at INTEGER NOT NULL
);
`,
  },
  {
    // Whether each login's token reaches the account's library (its scopes, else its /mcp's tools),
    // so that a session knows which library it uses without asking the network.
    version: 12,
    sql: `
CREATE TABLE instance_library (
  url        TEXT PRIMARY KEY,
  library    INTEGER NOT NULL,
  how        TEXT NOT NULL,
  checked_at INTEGER NOT NULL
);
`,
  },
  {
    // Permission rules the person kept from an approval card beyond the session: for one project
    // (root) or everywhere (root NULL), until expires_at (NULL: never).
    version: 13,
    sql: `
CREATE TABLE kept_rules (
  id         TEXT PRIMARY KEY,
  action     TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
  rule       TEXT NOT NULL,
  root       TEXT,
  session_id TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX kept_rules_root ON kept_rules(root);
`,
  },
  {
    // The code index: each project's files (by root, paths relative to it) with the chunks the
    // embedding model made of them, a vector each, and an FTS5 index over the chunks' text, as the
    // library keeps documents. A file left out (binary, minified, generated, too large) has a row
    // with no chunks, so a refresh need not read it again while it is unchanged.
    // code_roots.generation changes with every write to a root's index.
    version: 14,
    sql: `
CREATE TABLE code_files (
  id        INTEGER PRIMARY KEY,
  root      TEXT NOT NULL,
  path      TEXT NOT NULL,
  hash      TEXT NOT NULL,
  mtime     INTEGER NOT NULL,
  size      INTEGER NOT NULL,
  model     TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  chunks    INTEGER NOT NULL,
  skipped   TEXT,
  UNIQUE (root, path)
);
CREATE TABLE code_chunks (
  id         INTEGER PRIMARY KEY,
  file_id    INTEGER NOT NULL REFERENCES code_files(id) ON DELETE CASCADE,
  root       TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  text       TEXT NOT NULL,
  vector     BLOB NOT NULL
);
CREATE INDEX code_chunks_file ON code_chunks(file_id);
CREATE INDEX code_chunks_root ON code_chunks(root);
CREATE VIRTUAL TABLE code_fts USING fts5(text, content='code_chunks', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER code_chunks_ai AFTER INSERT ON code_chunks BEGIN
  INSERT INTO code_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER code_chunks_ad AFTER DELETE ON code_chunks BEGIN
  INSERT INTO code_fts(code_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TABLE code_roots (
  root       TEXT PRIMARY KEY,
  generation INTEGER NOT NULL
);
`,
  },
  {
    // What the person entered during a turn that the quit left unsent (the model's next step never
    // came): kept in the project's prompt history, so that ↑ brings it back in the next run.
    // The commands the person ran with `!` in a session (shell_runs.body: the run as JSON), after
    // how many of its user messages: a resumed session draws them where they came.
    version: 15,
    sql: `
CREATE TABLE unsent_prompts (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  root       TEXT NOT NULL,
  text       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX unsent_prompts_root ON unsent_prompts(root);

CREATE TABLE shell_runs (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  after_users INTEGER NOT NULL,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX shell_runs_session ON shell_runs(session_id);
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
