import { readFileSync } from "node:fs";

/** A process's state letter and process group, from /proc/PID/stat (Linux); throws when it is gone or not readable. */
export function procStat(pid: string | number): { state: string; pgrp: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  // pid (comm) state ppid pgrp …: the comm may hold spaces and parentheses.
  const [state = "", , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, pgrp: Number(pgrp) };
}
