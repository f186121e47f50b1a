import { z } from "zod";
import { PermissionsConfig } from "./permissions-schema.ts";
import { PERSONALITY_NAMES } from "./personalities.ts";
import { EFFORTS, MODEL_APIS, MODES, THEME_NAMES } from "./key-values.ts";
import { lazily } from "../lazy.ts";
import { HOOK_EVENTS, hookGroupSchema, hooksSchema, type HookGroup, type HooksConfig } from "./hook-schemas.ts";

export { EFFORTS, MODES, THEME_NAMES, HOOK_EVENTS, hookGroupSchema, hooksSchema, type HookGroup, type HooksConfig };
export const Mode = z.enum(MODES);
export type Mode = z.infer<typeof Mode>;

export const Effort = z.enum(EFFORTS);
export type Effort = z.infer<typeof Effort>;

export const HookEvent = z.enum(HOOK_EVENTS);
export type HookEvent = z.infer<typeof HookEvent>;

/** The terminal's colours (lembas in a terminal; /theme changes it). */
export const ThemeSetting = z.enum(THEME_NAMES);

/** How the terminal says a turn ended or a card waits while it is not in front: the bell, a desktop notification too, or nothing. */
export const NOTIFY_SETTINGS = ["bell", "desktop", "off"] as const;
export type NotifySetting = (typeof NOTIFY_SETTINGS)[number];
const rootPath = z
  .string()
  .refine((p) => p === "~" || p.startsWith("~/") || p.startsWith("/"), {
    message: "must be an absolute path or start with ~/",
  });

/** One OpenAI-compatible endpoint of the device's own. */
export const Connection = z
  .object({
    base_url: z.url({ message: "must be a URL such as http://127.0.0.1:11434/v1" }),
    /** The API it speaks: chat (completions), messages (Anthropic's) or responses (OpenAI's); unset: its host says (model/apis.ts). */
    api: z.enum(MODEL_APIS).optional(),
    api_key_env: z.string().min(1).optional(),
    api_key: z.string().min(1).optional(),
    /** Context window (tokens) for every model of this connection, over what discovery says. */
    context: z.number().int().positive().optional(),
    /** The older name of `context`, still read. */
    context_length: z.number().int().positive().optional(),
    /** The most tokens a reply may have (sent as max_tokens), over what discovery says. */
    max_output: z.number().int().positive().optional(),
    /** false: this connection's models take no tools, and a turn is plain chat. */
    supports_tools: z.boolean().optional(),
    /** Whether its models' answers are read for tool calls written as text (unset: the server's family says). */
    text_tool_calls: z.boolean().optional(),
    /** Whether its models take reasoning_effort (true), or never (false); unset: found out. */
    reasoning: z.boolean().optional(),
    /** Seconds without a byte from the server before a stream is given up (and retried). */
    idle_timeout: z.number().positive().max(3600).optional(),
    /** Headers sent with every request to this connection (after the Authorization one). */
    headers: z.record(z.string().min(1), z.string()).optional(),
    /** Fields merged into every request body to this connection (e.g. Ollama's options, OpenRouter's provider). */
    body: z.record(z.string().min(1), z.unknown()).optional(),
    /** Whether this connection's models take images; unset means: ask /v1/models, else no. */
    vision: z.boolean().optional(),
  })
  .strict();
export type Connection = z.infer<typeof Connection>;

export const Remote = z
  .object({
    roots: z.array(rootPath).default(["~/work"]),
    max_mode: Mode.default("edit"),
    require_trust: z.boolean().default(true),
    terminal: z.boolean().default(false),
    terminal_integration: z.boolean().default(true),
    approval_timeout: z.number().int().positive().default(300),
  })
  .strict();
export type Remote = z.infer<typeof Remote>;

/** What the tools' commands (bash, MCP servers) are given. */
export const Tools = z
  .object({
    /** Variables a command may still see although they look like secrets (see src/tools/environment.ts). */
    env_passthrough: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "a variable name is letters, digits and _" })).default([]),
  })
  .strict();
export type Tools = z.infer<typeof Tools>;

/** What the fetch tool may reach. */
export const Fetch = z
  .object({
    /** true: loopback, link-local and private addresses too; a list: only these hosts of them (e.g. a local docs server). */
    allow_private: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
  })
  .strict();

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One MCP server of config.yaml's `mcp:`, for every session: a command it runs as (command, args,
 * env) or an URL it is reached at over streamable HTTP (url, headers). Values may say `${VAR}` or
 * `${VAR:-default}` (the person's environment), as in a project's .mcp.json. One object, not a
 * union, so that `lembas config set mcp.NAME.command …` finds its keys and a mistake gets a sentence.
 * Made when a file names a server (most name none), as the hooks' schemas are.
 */
export const mcpServerSchema = lazily(() =>
  z
    .object({
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string().regex(VARIABLE_NAME, { message: "a variable name is letters, digits and _" }), z.string()).optional(),
      // A ${VAR} in it is checked once expanded (src/mcp/entry.ts).
      url: z
        .string()
        .refine((url) => /\$\{[A-Za-z_]/.test(url) || (/^https?:\/\//i.test(url) && URL.canParse(url)), { message: "must be an http(s) URL such as http://127.0.0.1:3000/mcp" })
        .optional(),
      headers: z.record(z.string().min(1), z.string()).optional(),
    })
    .strict()
    .superRefine((server, ctx) => {
      if (server.command === undefined && server.url === undefined) {
        ctx.addIssue({ code: "custom", message: "needs command (a server lembas starts) or url (one it reaches over HTTP)" });
      } else if (server.command !== undefined && server.url !== undefined) {
        ctx.addIssue({ code: "custom", message: "takes command or url, not both" });
      } else if (server.url !== undefined && (server.args !== undefined || server.env !== undefined)) {
        ctx.addIssue({ code: "custom", message: "args and env are for a command; a server at an url takes headers" });
      } else if (server.command !== undefined && server.headers !== undefined) {
        ctx.addIssue({ code: "custom", message: "headers are for a server at an url; a command takes args and env" });
      }
    }),
);
export type McpServerConfig = z.infer<ReturnType<typeof mcpServerSchema>>;

/** One language server of config.yaml's `lsp:`: the command it runs as, and the extensions of the files it is for ("ts", no dot). */
export const lspServerSchema = lazily(() =>
  z
    .object({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      extensions: z.array(z.string().min(1)).min(1, { message: "must name at least one extension" }),
    })
    .strict(),
);

/** How long an MCP server has (seconds): to start and list its tools, and for one tool call. */
export const McpTimeouts = z
  .object({
    start: z.number().positive().default(10),
    call: z.number().positive().default(60),
  })
  .strict();

/** The interactive terminal's own settings (`tui:` in config.yaml). */
export const TuiConfig = z
  .object({
    /** Vim keys in the composer from the start (/vim toggles them). */
    vim: z.boolean({ message: "must be true or false" }).default(false),
    notify: z.enum(NOTIFY_SETTINGS).default("desktop"),
  })
  .strict();

export const Config = z
  .object({
    model: z.string().min(1).nullable().default(null),
    effort: Effort.default("medium"),
    mode: Mode.default("edit"),
    connections: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: "a connection name is letters, digits, . _ -" }), Connection)
      .default({}),
    remote: Remote.prefault({}),
    protected: z.array(z.string().min(1)).default([]),
    tools: Tools.prefault({}),
    fetch: Fetch.prefault({}),
    mcp: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, { message: "an MCP server's name is letters, digits, _ -" }), z.lazy(mcpServerSchema))
      .default({}),
    mcp_timeouts: McpTimeouts.prefault({}),
    hooks: z.lazy(hooksSchema).default({}),
    permissions: PermissionsConfig.prefault({}),
    /** The MCP tool that runs web_search (`mcp__NAME__TOOL`), over the provider's own search where both exist. */
    web_search: z
      .string()
      .regex(/^mcp__[A-Za-z0-9_-]+__\S+$/, { message: "must name an MCP tool as mcp__NAME__TOOL (NAME a server under mcp:, TOOL its search tool)" })
      .nullable()
      .default(null),
    /**
     * Language servers besides those lembas knows (typescript-language-server, pyright-langserver or
     * pylsp, gopls, rust-analyzer), or in their place for the extensions named: NAME: {command, args, extensions}.
     */
    lsp: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, { message: "a language server's name is letters, digits, _ -" }), z.lazy(lspServerSchema)).default({}),
    /** true: an edit's result says the file's warnings from its language server too, not only its errors. */
    lsp_warnings: z.boolean({ message: "must be true or false" }).default(false),
    embedding: z.string().min(1).nullable().default(null),
    library: z.enum(["local", "lembas"]).nullable().default(null),
    /** Whether projects are indexed for code_search (with an embedding model); a project opts out in .agent/settings.json too. */
    index: z.boolean({ message: "must be true or false" }).default(true),
    personality: z
      .string()
      .refine((name) => PERSONALITY_NAMES.includes(name), { message: `must be one of ${PERSONALITY_NAMES.join(", ")} (lembas config get personality --help describes them)` })
      .nullable()
      .default(null),
    personality_custom: z.string().nullable().default(null),
    instructions: z.string().nullable().default(null),
    theme: ThemeSetting.default("dark"),
    tui: TuiConfig.prefault({}),
  })
  .strict();
export type Config = z.infer<typeof Config>;


/** What the person sets of the prompt: config.yaml's keys, or an instance's personalization in their place. */
export type PersonalSettings = Pick<Config, "personality" | "personality_custom" | "instructions">;
