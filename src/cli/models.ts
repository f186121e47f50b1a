import { defineCommand } from "citty";
import { createEngine } from "../engine/create.ts";
import { createContext } from "./context.ts";

export default defineCommand({
  meta: { name: "models", description: "List every model ref this device can use" },
  async run() {
    const ctx = createContext();
    const { models } = createEngine(ctx);
    const entries = await models.entries();
    for (const notice of models.takeNotices()) console.error(`lembas: ${notice}`);
    const current = ctx.config().model;
    for (const entry of entries) console.log(`${entry.ref === current ? "*" : " "} ${entry.ref}`);
    if (entries.length === 0) console.error("lembas: no models: add a connection to config.yaml, or log in to a LLeMbas instance");
  },
});
