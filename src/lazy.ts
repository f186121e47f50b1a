/**
 * A value made the first time it is asked for, then kept. For zod schemas a process may never use:
 * built at module load, each costs its allocation and its share of the first garbage collection in
 * every start (bench/START.md). The type of what it makes reads as `z.infer<ReturnType<typeof X>>`.
 */
export function lazily<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
