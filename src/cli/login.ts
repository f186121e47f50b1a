import { defineCommand } from "./command.ts";
import { UserError } from "../errors.ts";
import { encryptedUrl, login, loginLines, replacedLine } from "../link/login.ts";
import { createContext } from "../app/context.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "login", description: DESCRIPTIONS.login,
    examples: ["lembas login https://lembas.example.org", "pass lembas/token | lembas login https://lembas.example.org --token-stdin"],
  },
  args: {
    url: { type: "positional", required: true, description: "the instance, e.g. https://lembas.example.org" },
    token: { type: "string", valueHint: "TOKEN", description: "the device token (visible in your shell history: prefer --token-stdin)" },
    "token-stdin": { type: "boolean", description: "read the device token from stdin" },
    name: { type: "string", valueHint: "NAME", description: "the connection name for this instance (default: from its host)" },
    insecure: { type: "boolean", description: "allow an http:// URL to another host than this device (the token travels unencrypted)" },
  },
  async run({ args }) {
    // Refused before the token is asked for.
    encryptedUrl(args.url, args.insecure === true);
    const token = args.token ?? (args["token-stdin"] ? await readStdin() : await askToken());
    const ctx = createContext();
    const result = await login({
      url: args.url,
      token,
      ...(args.name ? { name: args.name } : {}),
      insecure: args.insecure === true,
      db: ctx.db(),
      config: ctx.config(),
      paths: ctx.paths,
    });
    const replaced = replacedLine(result);
    if (replaced) process.stderr.write(`${replaced}\n`);
    for (const line of loginLines(result)) console.log(line);
    console.log("run lembas serve (or lembas service install) to link this device");
  },
});

async function readStdin(): Promise<string> {
  const text = (await new Response(Bun.stdin.stream()).text()).trim();
  if (!text) throw new UserError("--token-stdin: stdin was empty", 2);
  return text;
}

async function askToken(): Promise<string> {
  if (!process.stdin.isTTY) throw new UserError("give the device token with --token-stdin (or --token)", 2);
  const { readSecret } = await import("./secret-prompt.ts");
  return (await readSecret("device token (not shown as you type): ")).trim();
}
