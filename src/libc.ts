/** The names the C library is opened by: glibc's, musl's, then a linker script's (rarely loadable); macOS's system library. */
export const LIBC_NAMES =
  process.platform === "darwin"
    ? ["/usr/lib/libSystem.B.dylib"]
    : ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`, "libc.so"];

/** What `open` makes of the first of LIBC_NAMES it can open, or null where none opens. */
export function openFirstLibc<T>(open: (name: string) => T): T | null {
  for (const name of LIBC_NAMES) {
    try {
      return open(name);
    } catch {
      // the next name
    }
  }
  return null;
}
