import { ParamsError } from "./request-error.ts";
import {
  array,
  arraySkipping,
  boolean,
  both,
  type Check,
  int,
  issueTree,
  literal,
  nullAs,
  nullish,
  number,
  object,
  optional,
  orElse,
  record,
  string,
  union,
  wideInt,
  withDefault,
} from "./shape.ts";

/**
 * The params of the ACP methods an agent serves, checked as the ACP SDK's generated schemas
 * (`v1/schema/zod.gen.js` of @agentclientprotocol/sdk 2.4.0) check them, field for field, with
 * the same words when they fail: the SDK's module is not loaded (it builds all of its schemas at
 * load, a fifth of a cold `serve --stdio`'s CPU to its first chunk). test/rpc/acp-params.test.ts
 * holds each to the SDK's schema over generated good and bad params.
 */
const meta = orElse(nullish(record), () => undefined);
const lenient = (check: Check) => orElse(nullish(check), () => undefined);

const annotations = object({
  audience: lenient(arraySkipping(union(literal("assistant"), literal("user")))),
  lastModified: lenient(string),
  priority: lenient(number),
  _meta: meta,
});
const blockBase = { annotations: lenient(annotations) };
const tagged = (tag: string, shape: Record<string, Check>) => both(object(shape), object({ type: literal(tag) }));

const contentBlock = union(
  tagged("text", { ...blockBase, text: string, _meta: meta }),
  tagged("image", { ...blockBase, data: string, mimeType: string, uri: lenient(string), _meta: meta }),
  tagged("audio", { ...blockBase, data: string, mimeType: string, _meta: meta }),
  tagged("resource_link", {
    ...blockBase,
    description: lenient(string),
    mimeType: lenient(string),
    name: string,
    size: lenient(wideInt()),
    title: lenient(string),
    uri: string,
    _meta: meta,
  }),
  tagged("resource", {
    ...blockBase,
    resource: union(
      object({ mimeType: lenient(string), text: string, uri: string, _meta: meta }),
      object({ blob: string, mimeType: lenient(string), uri: string, _meta: meta }),
    ),
    _meta: meta,
  }),
);

const nameValue = object({ name: string, value: string, _meta: meta });
const remote = { name: string, url: string, headers: nullAs(array(nameValue), () => []), _meta: meta };
const mcpServer = union(
  tagged("http", remote),
  tagged("sse", remote),
  object({ name: string, command: string, args: nullAs(array(string), () => []), env: nullAs(array(nameValue), () => []), _meta: meta }),
);
const mcpServers = nullAs(array(mcpServer), () => []);
const directories = optional(nullAs(array(string), () => []));

const noFiles = () => ({ readTextFile: false, writeTextFile: false });
const flag = orElse(withDefault(boolean, () => false), () => false);
const onlyMeta = object({ _meta: meta });
const clientCapabilities = object({
  fs: orElse(withDefault(object({ readTextFile: flag, writeTextFile: flag, _meta: meta }), noFiles), noFiles),
  terminal: flag,
  session: lenient(
    object({
      compaction: lenient(record),
      configOptions: lenient(object({ boolean: lenient(onlyMeta), _meta: meta })),
      notices: lenient(record),
      _meta: meta,
    }),
  ),
  auth: orElse(withDefault(object({ terminal: flag, _meta: meta }), () => ({ terminal: false })), () => ({ terminal: false })),
  elicitation: lenient(object({ form: lenient(onlyMeta), url: lenient(onlyMeta), _meta: meta })),
  _meta: meta,
});
const noCapabilities = () => ({ fs: noFiles(), terminal: false, auth: { terminal: false } });

const SCHEMAS: Record<string, Check> = {
  initialize: object({
    protocolVersion: int(0, 65535),
    clientCapabilities: orElse(withDefault(clientCapabilities, noCapabilities), noCapabilities),
    clientInfo: lenient(object({ name: string, title: lenient(string), version: string, _meta: meta })),
    _meta: meta,
  }),
  "session/new": object({ cwd: string, additionalDirectories: directories, mcpServers, _meta: meta }),
  "session/load": object({ mcpServers, cwd: string, additionalDirectories: directories, sessionId: string, _meta: meta }),
  "session/list": object({ cwd: nullish(string), cursor: nullish(string), _meta: meta }),
  "session/delete": object({ sessionId: string, _meta: meta }),
  "session/resume": object({ sessionId: string, cwd: string, additionalDirectories: directories, mcpServers: optional(mcpServers), _meta: meta }),
  "session/close": object({ sessionId: string, _meta: meta }),
  "session/set_mode": object({ sessionId: string, modeId: string, _meta: meta }),
  "session/set_config_option": both(
    union(object({ type: literal("boolean"), value: boolean }), object({ value: string })),
    object({ sessionId: string, configId: string, _meta: meta }),
  ),
  "session/prompt": object({ sessionId: string, prompt: array(contentBlock), _meta: meta }),
  "session/cancel": object({ sessionId: string, _meta: meta }),
};

/** The check of an ACP agent method's params: the params as the SDK's schema returns them, or a ParamsError with zod's tree. */
export function agentMethodParams(method: string): ((params: unknown) => unknown) | undefined {
  return PARSERS.get(method);
}

const PARSERS = new Map(
  Object.entries(SCHEMAS).map(([method, check]) => [
    method,
    (params: unknown) => {
      const r = check(params);
      if (r.ok) return r.value;
      throw new ParamsError(issueTree(r.issues));
    },
  ]),
);

/** Every method `agentMethodParams` knows (for the test that holds them to the SDK). */
export const AGENT_METHODS_CHECKED = Object.keys(SCHEMAS);
