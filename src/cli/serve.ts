import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { report } from "./report.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "serve", description: DESCRIPTIONS.serve,
    examples: ["lembas serve", "lembas serve --stdio"],
  },
  args: {
    stdio: { type: "boolean", description: "speak ACP on stdin/stdout, one JSON-RPC message a line (for Zed and other ACP clients)" },
    "own-engine": {
      type: "boolean",
      description: "with --stdio: run this process's own engine even when a service runs (else the service's serves the editor); LEMBAS_STDIO_OWN_ENGINE=1 does the same",
    },
  },
  async run({ args }) {
    if (args.stdio) return (await import("./stdio.ts")).serveStdio({ ownEngine: args["own-engine"] === true });
    const { runService } = await import("../service/daemon.ts");
    try {
      await runService(createContext());
    } catch (error) {
      // What the service had started before it failed (the engine warming, the store) must not keep it alive without its socket.
      process.exit(report(error));
    }
    process.exit(0);
  },
});
