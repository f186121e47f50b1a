/** Whose library the agent uses: the device's, the account's (through the instance's /mcp), or none. */
export type LibraryChoice = "local" | "lembas" | "none";

export type ChoiceInput = {
  /** config.yaml's `library:` as the person wrote it (null: not set). */
  configured: "local" | "lembas" | null;
  /** Whether exactly one login's token has the library scope (the account part says; false until then). */
  accountLibrary: boolean;
  /** Whether the device's own library holds any document. */
  localDocuments: boolean;
};

/**
 * The rule (spec: "a config that sets no library: uses the account's (lembas); library: local
 * written stays local"): what the person wrote wins whatever the logins; with nothing written, the
 * account's library when one login has it, else the device's when it holds documents, else none.
 */
export function libraryChoice(input: ChoiceInput): LibraryChoice {
  if (input.configured !== null) return input.configured;
  if (input.accountLibrary) return "lembas";
  return input.localDocuments ? "local" : "none";
}
