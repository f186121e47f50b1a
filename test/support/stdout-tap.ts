/**
 * For probes preloaded into `lembas serve --stdio`: calls `after` with each string the process
 * writes through Bun's stdout writer (rpc/stdio.ts writes its lines as strings), once it is written.
 */
export function tapStdoutWrites(after: (chunk: string) => void): void {
  const stdout = Bun.stdout;
  const writer = stdout.writer.bind(stdout);
  Object.defineProperty(stdout, "writer", {
    value: (...args: Parameters<typeof stdout.writer>) => {
      const sink = writer(...args);
      return new Proxy(sink, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key);
          if (key === "write") {
            return (chunk: string) => {
              const written = target.write(chunk);
              after(chunk);
              return written;
            };
          }
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
  });
}
