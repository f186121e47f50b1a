/**
 * Preloaded into `lembas serve --stdio` by test/acp/start-up-load.test.ts: once the process writes
 * its first message (its stdout guard is in place by then), code of its own prints the way a
 * library might, with process.stdout.write and console.log. Neither may reach stdout.
 */
const stdout = Bun.stdout;
const writer = stdout.writer.bind(stdout);
let strayed = false;
Object.defineProperty(stdout, "writer", {
  value: (...args: Parameters<typeof stdout.writer>) => {
    const sink = writer(...args);
    return new Proxy(sink, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key === "write") {
          return (chunk: string) => {
            const written = target.write(chunk);
            if (!strayed) {
              strayed = true;
              process.stdout.write("stray process.stdout.write\n");
              console.log("stray console.log");
            }
            return written;
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  },
});
