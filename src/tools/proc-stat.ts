import { readFileSync } from "node:fs";

/**
 * A process's state letter, parent, process group and start time (clock ticks after boot: a later process
 * given the same pid has another), from /proc/PID/stat (Linux); throws when it is gone or not readable.
 */
export function procStat(pid: string | number): { state: string; ppid: number; pgrp: number; startTime: string } {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  // pid (comm) state ppid pgrp … starttime (the 22nd): the comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", ppid: Number(fields[1]), pgrp: Number(fields[2]), startTime: fields[19] ?? "" };
}
