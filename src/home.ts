/**
 * The home directory as `os.homedir()` says it: $HOME when set and not empty, else the password
 * database's. node:os is loaded only for the second: loading it costs a fresh process about as
 * much as a whole hello-world's start (bench/START.md), and `lembas run` needs the home before its
 * first model request.
 */
export function homedir(): string {
  const home = process.env.HOME;
  if (home) return home;
  return (require("node:os") as typeof import("node:os")).homedir();
}
