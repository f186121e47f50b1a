import { defineCommand } from "./command.ts";
import { resolvePaths } from "../config/paths.ts";
import { checkDevice, formatFinding } from "../app/doctor.ts";
import { terminalText } from "../controls.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

export default defineCommand({
  meta: { name: "doctor", description: DESCRIPTIONS.doctor, examples: ["lembas doctor", "lembas doctor --probe"] },
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
