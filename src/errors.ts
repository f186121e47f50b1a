/**
 * An error a person can act on: its message is one sentence, shown as is, never with a stack.
 * exitCode 2 is bad input (config, arguments), 1 a failure at run time.
 */
export class UserError extends Error {
  override name = "UserError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The errno code of a Node-style error ("ENOENT", "EACCES", …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
