import { errorCode } from "./errors.ts";

/** Whether a process with this pid runs (this one always does); one of another user's counts too. */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}
