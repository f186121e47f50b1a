/**
 * Run by test/config/load-once.test.ts in a fresh process: counts the functions compiled from text
 * (`new Function`, how zod makes an object's fast path) while config.yaml at argv[2] is loaded, and
 * prints `{"compiled":N,"config":…}` with what the load gave.
 */
const compiled: string[] = [];
const Original = globalThis.Function;
globalThis.Function = new Proxy(Original, {
  construct(target, args: string[], newTarget) {
    if ((args.at(-1) ?? "").trim() !== "") compiled.push(args.at(-1) ?? "");
    return Reflect.construct(target, args, newTarget);
  },
});
const { loadConfig } = await import("../../src/config/load.ts");
const counting = compiled.length;
const config = loadConfig(process.argv[2] ?? "");
console.log(JSON.stringify({ compiled: compiled.length - counting, config }));
export {};
