import { defineCommand } from "citty";
import { createContext } from "./context.ts";

export default defineCommand({
  meta: { name: "serve", description: "Run the device service (links to your instances), or serve ACP to an editor with --stdio" },
  args: {
    stdio: { type: "boolean", description: "speak ACP on stdin/stdout, one JSON-RPC message a line (for Zed and other ACP clients)" },
  },
  async run({ args }) {
    if (args.stdio) return (await import("./stdio.ts")).serveStdio();
    const { runService } = await import("../service/daemon.ts");
    await runService(createContext());
    process.exit(0);
  },
});
