/**
 * What command-keys knows of programs by name. Names are looked up lower-cased: on a
 * case-insensitive filesystem `RM` is rm.
 */

/** Programs whose first argument says what they do: "always" is kept per subcommand. */
export const SUBCOMMANDS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "deno", "npx", "bunx", "pnpx", "cargo", "go", "rustup", "make", "just",
  "docker", "podman", "kubectl", "helm", "terraform", "gh", "pip", "pip3", "uv", "poetry", "dotnet", "mvn",
  "gradle", "gradlew", "mvnw", "mix", "swift", "composer", "bundle", "brew", "apt", "apt-get", "systemctl",
  ...["node", "nodejs", "python", "python3", "ruby", "perl", "php", "tsx", "ts-node"],
]);

/** Interpreters whose first argument is a script file (never `-e …`): the script is keyed by where it is. */
export const INTERPRETERS = new Set(["node", "nodejs", "python", "python3", "ruby", "perl", "php", "tsx", "ts-node"]);

/** Programs whose first argument is a subcommand or a script file (`bun test`, `bun build.ts`). */
export const MAYBE_SCRIPT = new Set(["bun", "deno"]);

/** Subcommands that run something named by the next word (`npm run build`): that word is kept too. */
export const RUNNERS: Record<string, ReadonlySet<string>> = {
  npm: new Set(["run", "run-script", "exec", "x"]),
  pnpm: new Set(["run", "exec", "dlx"]),
  yarn: new Set(["run", "exec", "dlx"]),
  bun: new Set(["run", "x"]),
  deno: new Set(["run"]),
  go: new Set(["run"]),
  uv: new Set(["run", "tool"]),
  poetry: new Set(["run"]),
  bundle: new Set(["exec"]),
  python: new Set(["-m"]),
  python3: new Set(["-m"]),
};

/** Programs whose subcommand is itself a program they fetch or run (`npx tsc`). */
export const PROGRAM_RUNNERS = new Set(["npx", "bunx", "pnpx"]);

/** Options before a subcommand that change nothing about what runs; left out of the key. */
export const HARMLESS_OPTIONS: Record<string, ReadonlySet<string>> = {
  git: new Set(["--no-pager", "-P", "--no-optional-locks"]),
};

/**
 * Never allowed for a session: programs that run other commands (sudo, env, xargs, awk, sed's `e`,
 * flock…), shells, builtins that change the shell's state or evaluate their arguments as
 * arithmetic (`read 'a[$(id)]'` runs id), rm and patch, and the shell's own keywords (a line with
 * `if` or `for` is judged each time).
 */
export const NEVER = new Set([
  "sudo", "doas", "su", "env", "xargs", "parallel", "exec", "nohup", "eval", "source", ".", "command", "builtin",
  "time", "timeout", "nice", "ionice", "stdbuf", "watch", "strace", "ltrace", "chroot", "setsid", "unbuffer",
  "script", "sh", "bash", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "rm", "export", "declare", "typeset",
  "local", "readonly", "unset", "set", "shopt", "alias", "unalias", "enable", "hash", "trap", "pushd", "popd",
  "let", "read", "mapfile", "readarray", "getopts", "compgen", "complete", "compopt", "wait", "caller",
  "awk", "gawk", "mawk", "nawk", "sed", "gsed", "busybox", "toybox", "flock", "unshare", "nsenter", "ssh",
  "taskset", "chrt", "systemd-run", "runuser", "pkexec", "sg", "firejail", "bwrap", "expect", "tclsh",
  "lua", "osascript", "tmux", "screen", "vi", "vim", "nvim", "ex", "emacs", "patch",
  // Shells by other names, editors that run commands (view -c '!…'), debuggers and runners of a command they are given.
  "ash", "mksh", "yash", "posh", "rc", "es", "elvish", "nu", "xonsh", "pwsh", "powershell",
  "view", "rview", "vimdiff", "gvim", "gview", "rvim", "evim", "nano", "pico", "ed", "red",
  "gdb", "lldb", "valgrind", "perf", "setarch", "linux32", "linux64", "prlimit", "hyperfine", "sqlite3", "socat",
  "nc", "ncat", "netcat", "cross-env", "dotenv", "numactl", "cgexec", "setpriv", "capsh", "fakeroot", "proot",
  "faketime", "torsocks", "proxychains", "proxychains4", "sshpass", "dbus-run-session", "dbus-launch", "xvfb-run",
  "catchsegv", "chpst", "entr", "concurrently", "nodemon", "tini", "dumb-init", "gosu", "su-exec", "ssh-agent",
  "rlwrap", "sem", "at", "batch", "crontab",
  "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "select",
  "function", "coproc", "{", "}", "[[", "]]", "!",
]);

/** Subcommands that run commands of the person's config or the line's choosing, or delete like rm. */
export const NEVER_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set(["config", "submodule", "bisect", "filter-branch", "difftool", "mergetool", "send-email", "clean"]),
};

/**
 * Programs that read a whole directory tree (with this option, when they need one): a tree may
 * hold protected files, which no session key lets a command read.
 */
export const RECURSIVE_READERS: Record<string, { always: boolean; long?: readonly string[]; short?: string }> = {
  rg: { always: true },
  ag: { always: true },
  ack: { always: true },
  find: { always: true },
  tar: { always: true },
  rsync: { always: true },
  grep: { always: false, long: ["recursive", "dereference-recursive", "directories"], short: "rRd" },
  egrep: { always: false, long: ["recursive", "dereference-recursive", "directories"], short: "rRd" },
  fgrep: { always: false, long: ["recursive", "dereference-recursive", "directories"], short: "rRd" },
  cp: { always: false, long: ["recursive", "archive"], short: "rRa" },
  scp: { always: false, short: "r" },
  zip: { always: false, long: ["recurse-paths"], short: "rR" },
  // Not readers, but they change every file of a tree, protected ones too.
  chmod: { always: false, long: ["recursive"], short: "R" },
  chown: { always: false, long: ["recursive"], short: "R" },
  chgrp: { always: false, long: ["recursive"], short: "R" },
  gzip: { always: false, long: ["recursive"], short: "r" },
};
