/**
 * The most characters of one tool result the model is sent, whatever the tool (tools/tool.ts caps
 * every result to it); one file a prompt mentions is attached up to as much (project/attach.ts).
 */
export const MAX_RESULT_CHARS = 30_000;
