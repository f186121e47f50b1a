/**
 * So that no command's processes outlive lembas however it ends (SIGKILL, a crash, an editor that
 * kills its agent): a watchdog, a small shell started with the first command, in a session of its
 * own (no terminal's hang-up reaches it), reading a pipe whose write end only lembas holds. Lembas
 * tells it each command's process group as it starts and again once the group is gone; when the
 * pipe ends (lembas exited, or was killed), it stops the groups still listed and every process
 * carrying one of this process's marks (run-mark.ts: those that left their group): SIGTERM, then
 * SIGKILL after the grace period. PR_SET_PDEATHSIG would have the kernel do it, but Bun cannot set
 * it for a child; bwrap's --die-with-parent would kill a sandbox at once on every stop (sandbox.ts).
 */
import type { Subprocess } from "bun";
import { groupAlive, KILL_GRACE_MS } from "./process-group.ts";
import { ownMarkPrefix } from "./run-mark.ts";
import type { SandboxInit } from "./sandbox-init.ts";

/** How often a stopped group is looked at until it is gone (then the watchdog forgets it). */
const GONE_POLL_MS = 500;

/**
 * $1: seconds of grace, $2: the marks' prefix in an environment. Lines `+ID` and `-ID` add an id
 * and take it back out: a process group, or `iPID.START` a sandbox's PID 1 (sandbox-init.ts) with
 * its start time (a later process given its pid is not it). At the end of input the groups and the
 * marked processes are stopped, and after the grace period the sandboxes' PID 1s are killed, every
 * process of their sandboxes with them.
 */
const SCRIPT = `trap '' HUP INT PIPE
grace=$1 prefix=$2 groups=' '
while IFS= read -r line; do
  case $line in
    +*) id=\${line#+}
        case $groups in *" $id "*) ;; *) groups="$groups$id " ;; esac ;;
    -*) id=\${line#-}
        case $groups in *" $id "*) head=\${groups%%" $id "*} tail=\${groups#*" $id "}; groups="$head $tail" ;; esac ;;
  esac
done
sandbox() {
  id=\${1#i} sig=$2
  pid=\${id%%.*} start=\${id#*.}
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  set -- \${stat##*") "}
  [ "\${20}" = "$start" ] || return 1
  [ "$sig" = TERM ] || kill -s "$sig" "$pid" 2>/dev/null
}
stop() {
  sent=
  for g in $groups; do
    case $g in
      i*) sandbox "$g" "$1" && sent=1 ;;
      *) kill -s "$1" -- "-$g" 2>/dev/null && sent=1 ;;
    esac
  done
  [ -d /proc ] || { [ -n "$sent" ]; return; }
  for f in $(grep -l -s -F -e "$prefix" /proc/[0-9]*/environ); do
    p=\${f#/proc/}
    kill -s "$1" "\${p%/environ}" 2>/dev/null && sent=1
  done
  [ -n "$sent" ]
}
if stop TERM; then sleep "$grace"; stop KILL; fi
`;

let watchdog: Subprocess<"pipe", "ignore", "ignore"> | null = null;
/** The ids the watchdog holds: process groups, and sandboxes' PID 1s (`iPID.START`). */
const watched = new Set<string>();

/**
 * Puts the process group PGID (a command just started) in the watchdog's care, and its sandbox's
 * PID 1 (INIT) once known. The returned function takes the group back out once it is gone: right
 * away, or when it has ended. EMPTIED: the caller saw every process of it end (a sandbox's PID 1,
 * the last to go, closed its pipe), so what still answers a signal is a zombie. Otherwise a group
 * that still answers right after its command is looked at again later rather than now: it is most
 * often only a sandbox's PID 1, an orphan its new parent reaps when it gets to it (a second here),
 * and telling a zombie from a live process takes a read of every process's stat (a few ms), which
 * would be paid per command. The PID 1 is taken out (and its pidfd closed) once it has ended: the
 * caller kills it when it stops what the command left.
 */
export function watchGroup(pgid: number, init: Promise<SandboxInit | null> = Promise.resolve(null)): (emptied?: boolean) => void {
  add(String(pgid));
  let ending = false;
  const held = init.then((found) => {
    if (found) add(sandboxId(found));
    return found;
  });
  let released = false;
  let first = true;
  const release = (emptied = false): void => {
    if (!ending) {
      ending = true;
      void held.then(letGoWhenEnded);
    }
    if (released) return;
    const alive = !emptied && signalable(pgid) && (first || groupAlive(pgid));
    first = false;
    if (alive) {
      setTimeout(release, GONE_POLL_MS).unref();
      return;
    }
    released = true;
    // Never told of a group that may be gone: its pid may be another's group by then.
    remove(String(pgid));
  };
  return release;
}

function add(id: string): void {
  watched.add(id);
  tell(`+${id}`);
}

function remove(id: string): void {
  watched.delete(id);
  tell(`-${id}`);
}

function sandboxId(init: SandboxInit): string {
  return `i${init.pid}.${init.startTime}`;
}

/** Takes a sandbox's PID 1 out of the watchdog's care once it has ended, and lets go of its pidfd. */
function letGoWhenEnded(init: SandboxInit | null): void {
  if (!init) return;
  if (!init.ended) {
    setTimeout(() => letGoWhenEnded(init), GONE_POLL_MS).unref();
    return;
  }
  if (watched.has(sandboxId(init))) remove(sandboxId(init));
  init.close();
}

/** Whether anything of the group is left, a zombie too: one system call. */
function signalable(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: one of its processes is someone else's now (a setuid program), it is there all the same.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Writes a line to the watchdog, started (again, with every group still watched) when it is not running. */
function tell(line: string): void {
  try {
    const dog = running() ?? start();
    dog.stdin.write(`${line}\n`);
    void Promise.resolve(dog.stdin.flush()).catch(() => {});
  } catch {
    // No watchdog (no shell, no process left to start): the exit hooks and the next start's sweep remain.
  }
}

function running(): Subprocess<"pipe", "ignore", "ignore"> | null {
  if (!watchdog || watchdog.exitCode !== null || watchdog.signalCode !== null) return null;
  return watchdog;
}

function start(): Subprocess<"pipe", "ignore", "ignore"> {
  const dog = Bun.spawn(["/bin/sh", "-c", SCRIPT, "lembas-watchdog", String(KILL_GRACE_MS / 1000), ownMarkPrefix()], {
    // Without lembas's environment: it carries no mark (an outer lembas's would stop it), nor anything else of lembas's.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    detached: true,
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
  });
  // Neither the watchdog nor its pipe keeps lembas running.
  dog.unref();
  dog.stdin.unref();
  watchdog = dog;
  // The groups the one before was told of (the first line written below adds the new one).
  for (const id of watched) dog.stdin.write(`+${id}\n`);
  return dog;
}
