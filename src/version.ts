import pkg from "../package.json" with { type: "json" };

declare const LEMBAS_VERSION: string | undefined;
declare const LEMBAS_COMMIT: string | undefined;

/** Stamped by build.ts (`--define`); from source it is package.json's version and "dev". */
export const VERSION: string = typeof LEMBAS_VERSION === "string" ? LEMBAS_VERSION : pkg.version;
export const COMMIT: string = typeof LEMBAS_COMMIT === "string" ? LEMBAS_COMMIT : "dev";
/** The version of the harness spec (../shared/spec) this build implements. */
export const HARNESS_SPEC = "1.0.0";

export function versionLine(): string {
  return `lembas ${VERSION} (${COMMIT})`;
}
