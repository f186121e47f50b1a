import { defineCommand } from "citty";
import { readServiceStatus } from "../service/control.ts";
import { listLogins } from "../store/logins.ts";
import { createContext } from "./context.ts";

export default defineCommand({
  meta: { name: "status", description: "Each login, its link's state, and the sessions it holds" },
  async run() {
    const ctx = createContext();
    const logins = listLogins(ctx.db());
    const service = await readServiceStatus(ctx.paths.socketFile);
    if (logins.length === 0) console.log("no logins: lembas login URL links this device to an instance");
    for (const login of logins) {
      const link = service.running ? service.status.links.find((l) => l.name === login.name) : undefined;
      const state = !service.running ? "no link (the service is not running)" : link ? `${link.state} since ${link.since}` : "no link yet";
      console.log(`${login.name}  ${login.url}  ${state}`);
      for (const session of link?.sessions ?? []) console.log(`  ${session}`);
    }
    if (service.running) console.log(`service: running (pid ${service.status.pid}, lembas ${service.status.version})`);
    else console.log(`service: not running (${service.reason})`);
  },
});
