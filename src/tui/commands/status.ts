import { checkDevice, formatFinding } from "../../app/doctor.ts";
import { statusLines } from "../../app/status-report.ts";
import { errorMessage } from "../../errors.ts";
import type { CommandHost } from "../command-host.ts";
import { serviceLinkLine } from "../service-link.ts";
import { say } from "./say.ts";
import { counted } from "../../plural.ts";

/**
 * /status: this session's facts, then what `lembas status` says (the logins, their links), and
 * the terminal's link to the service: one block, a fact a line (not a paragraph each).
 */
export async function status(app: CommandHost): Promise<void> {
  const runtime = app.runtime;
  const s = runtime.session;
  const lines = [
    `session ${s.id}${s.title ? ` · ${s.title}` : ""}`,
    `model ${s.model ?? runtime.defaultModel ?? "none"} · mode ${s.mode} · effort ${s.effort} · ${counted(app.status.sessionTokens, "token")} here`,
    s.cwd === s.root ? `in ${s.cwd}` : `in ${s.cwd} (project ${s.root})`,
  ];
  const sharing = runtime.sharingSaid();
  if (sharing) lines.push(sharing.sentence);
  try {
    lines.push(...(await statusLines(runtime.ctx, serviceLinkLine(runtime.service))));
  } catch (error) {
    say(app, lines.join("\n"));
    say(app, `the service's status could not be read: ${errorMessage(error)}`, "warn");
    return;
  }
  say(app, lines.join("\n"));
}

/** /doctor: `lembas doctor`'s checks, a line each, problems as warnings. */
export async function doctor(app: CommandHost): Promise<void> {
  say(app, "checking…");
  const findings = await checkDevice(app.runtime.ctx.paths);
  for (const finding of findings) say(app, formatFinding(finding), finding.ok ? "info" : "warn");
}
