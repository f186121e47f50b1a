/** What to tell a person whose `lembas service install` failed: how to run `lembas serve` without a service manager. */
import type { ServiceSpec } from "./units.ts";

export function byHandLines(spec: ServiceSpec, platform: NodeJS.Platform, user: string): string[] {
  const command = spec.command.map(shellWord).join(" ");
  return [
    `to run it without a service manager: nohup ${command} >/dev/null 2>&1 &  (or in a tmux window); its log: ${spec.logFile}`,
    ...(platform === "linux" ? [`with systemd, loginctl enable-linger ${user} keeps user services running after you log out`] : []),
  ];
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
