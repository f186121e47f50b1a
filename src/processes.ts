import { readFileSync } from "node:fs";
import { errorCode } from "./errors.ts";

/**
 * Whether a process with this pid runs (this one always does); one of another user's counts too.
 * A zombie (ended, not yet reaped by its parent: Linux says so in /proc) runs nothing: it is not.
 */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}
