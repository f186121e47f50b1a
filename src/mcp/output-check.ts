import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";

/** What a compiled outputSchema says of a value: null when it keeps to it, else what is wrong. */
type Check = (value: unknown) => string | null;

/** One compiled check per schema (a server listed again gives new objects, checked afresh). */
const checks = new WeakMap<object, Check>();

/**
 * Why a call's result does not keep to the tool's outputSchema, as a sentence the model sees as the
 * call's error, or null. MCP: a tool that declares one MUST return structured content conforming
 * to it, and a client SHOULD check it (the SDK's client did, from its own tools/list, which
 * lembas no longer uses: tool-list.ts). A failed call is not checked; a schema the validator cannot
 * compile leaves its results unchecked rather than refusing the tool.
 */
export async function outputProblem(server: string, tool: McpToolDefinition | undefined, result: CallToolResult): Promise<string | null> {
  const schema = tool?.outputSchema;
  if (!tool || !schema || result.isError) return null;
  const named = `MCP tool ${JSON.stringify(tool.name)} of server ${JSON.stringify(server)}`;
  if (result.structuredContent === undefined) return `${named} declares an outputSchema but returned no structured content.`;
  const wrong = (await checkFor(schema))(result.structuredContent);
  return wrong === null ? null : `${named} returned structured content that does not match its outputSchema: ${wrong}`;
}

type Validator = import("@modelcontextprotocol/sdk/validation/types.js").jsonSchemaValidator;

/** The SDK's own validator (ajv, with formats): loaded with the first tool that declares an outputSchema, then shared. */
let validator: Promise<Validator> | null = null;

async function checkFor(schema: object): Promise<Check> {
  const known = checks.get(schema);
  if (known) return known;
  validator ??= import("@modelcontextprotocol/sdk/validation/ajv").then((m) => new m.AjvJsonSchemaValidator());
  let check: Check;
  try {
    const validate = (await validator).getValidator(schema);
    check = (value) => {
      const answer = validate(value);
      return answer.valid ? null : (answer.errorMessage ?? "it does not match").replaceAll(/\bdata(?=[/ ]|$)/g, "structuredContent");
    };
  } catch {
    check = () => null;
  }
  checks.set(schema, check);
  return check;
}
