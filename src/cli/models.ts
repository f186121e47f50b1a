import { defineCommand } from "./command.ts";
import { createEngine } from "../app/start-engine.ts";
import { windowText } from "../model/discovery.ts";
import { modelApi } from "../model/apis.ts";
import type { ListingStatus } from "../model/registry.ts";
import { noModelHint } from "../config/hints.ts";
import { UserError } from "../errors.ts";
import { createContext } from "../app/context.ts";
import { terminalLine } from "../controls.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: {
    name: "models",
    description: DESCRIPTIONS.models,
    examples: ["lembas models"],
  },
  async run() {
    const ctx = createContext();
    const { models } = createEngine(ctx);
    await models.refreshAll();
    const entries = await models.entries();
    // What servers answered (their errors, their names) is shown as text.
    for (const notice of models.takeNotices()) console.error(`lembas: ${terminalLine(notice)}`);
    let unreached = 0;
    for (const status of await models.statuses()) {
      const line = statusLine(status);
      if (line) console.error(`lembas: ${terminalLine(line)}`);
      if (status.error !== null && status.models === null) unreached++;
    }
    const current = ctx.config().model;
    const width = Math.max(0, ...entries.map((e) => e.ref.length));
    const rows = await Promise.all(entries.map((entry) => models.resolve(entry.ref).then((m) => ({ ref: entry.ref, window: m.window, api: modelApi(m.endpoint, m.servedId) }), () => ({ ref: entry.ref, window: null, api: null }))));
    // The API's column is as wide as config.yaml's longest word for it among these.
    const apiWidth = Math.max(0, ...rows.map((r) => r.api?.length ?? 0));
    for (const row of rows) {
      const mark = row.ref === current ? "*" : " ";
      const said = row.window && row.api ? `${row.ref.padEnd(width)}  ${row.api.padEnd(apiWidth)}  ${windowText(row.window)}` : row.ref;
      console.log(terminalLine(`${mark} ${said}`));
    }
    if (entries.length > 0) return;
    if (unreached > 0) throw new UserError(unreached === 1 ? "no models: the connection above could not be reached" : `no models: none of the ${unreached} connections above could be reached`, 1);
    console.error(`lembas: ${noModelHint()}`);
  },
});

function statusLine(status: ListingStatus): string | null {
  if (status.error === null) return null;
  if (status.models === null || status.listedAt === null) return `connection ${status.name}: ${status.error}`;
  const when = new Date(status.listedAt).toISOString().replace("T", " ").slice(0, 16);
  return `connection ${status.name} could not list its models now (${status.error}): showing the ${status.models} it listed at ${when} UTC`;
}
