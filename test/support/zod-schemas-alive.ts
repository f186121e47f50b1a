/**
 * Run by test/engine/schemas-at-load.test.ts in a fresh process: imports the modules of its first
 * argument, counts the zod schemas alive (objects with zod's `_zod` field, in a heap snapshot taken
 * after a full collection), then imports those of its second argument and counts again; with a
 * third, loads that config.yaml and counts once more. Prints `{"first":N,"then":M,"loaded":L}`:
 * M − N is what the second modules built at load beyond the first ones, L − M what the load built.
 */
const [first = "", then = "", config = ""] = process.argv.slice(2);

function schemasAlive(): number {
  const snapshot = JSON.parse(Bun.generateHeapSnapshot("v8")) as {
    snapshot: { meta: { edge_fields: string[]; edge_types: [string[]] } };
    edges: number[];
    strings: string[];
  };
  const { edge_fields: fields, edge_types: [types] } = snapshot.snapshot.meta;
  let count = 0;
  for (let i = 0; i < snapshot.edges.length; i += fields.length) {
    const type = types[snapshot.edges[i] ?? -1];
    if ((type === "property" || type === "internal") && snapshot.strings[snapshot.edges[i + 1] ?? -1] === "_zod") count++;
  }
  return count;
}

const load = async (list: string) => {
  for (const path of list.split(",").filter(Boolean)) await import(path);
};
await load(first);
const before = schemasAlive();
await load(then);
const after = schemasAlive();
let loaded: number | null = null;
if (config) {
  const { loadConfig } = await import("../../src/config/load.ts");
  loadConfig(config);
  loaded = schemasAlive();
}
console.log(JSON.stringify({ first: before, then: after, loaded }));
export {};
