import { defineCommand } from "./command.ts";
import { type Paths, resolvePaths } from "../config/paths.ts";
import { type Finding, formatFinding, runDoctor } from "../service/doctor.ts";
import { terminalText } from "../controls.ts";

/** `lembas doctor`'s checks, as every front end runs them (the terminal's /doctor too). */
export function checkDevice(paths: Paths, opts: { probe?: boolean } = {}): Promise<Finding[]> {
  return runDoctor({ paths, env: process.env, localPorts: localPorts(process.env.LEMBAS_LOCAL_PORTS), probe: opts.probe ?? false });
}

export default defineCommand({
  meta: { name: "doctor", description: "Check the config, the database, the models, the logins, the service, the shells and the tools' sandbox", examples: ["lembas doctor", "lembas doctor --probe"] },
  args: {
    probe: { type: "boolean", description: "Also ask each connection's model, with a one-token request, whether it takes tools" },
  },
  async run({ args }) {
    const findings = await checkDevice(resolvePaths(), { probe: args.probe === true });
    // A finding may quote what a server or an instance answered: shown as text.
    for (const finding of findings) console.log(terminalText(formatFinding(finding)));
    if (findings.some((f) => !f.ok)) process.exitCode = 1;
  },
});

/** LEMBAS_LOCAL_PORTS=11434,8080 changes which loopback ports are probed for a local model server (as lembas run does). */
function localPorts(value: string | undefined): number[] | undefined {
  if (!value) return undefined;
  const ports = value.split(",").map((p) => Number(p.trim())).filter((p) => Number.isInteger(p) && p > 0 && p < 65536);
  return ports.length > 0 ? ports : undefined;
}
