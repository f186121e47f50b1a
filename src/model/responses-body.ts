import type { BodyExtras, ChatMessage, ChatRequest, ContentPart } from "./request.ts";

/**
 * The body of `POST {base_url}/responses` (platform.openai.com/docs/api-reference/responses/create)
 * for one of the engine's requests. The system prompt is `instructions`; the conversation is
 * `input` items: messages, `function_call`s with their `function_call_output`s, and the reasoning
 * items a reply of this turn carried (their encrypted_content: with `store: false` nothing is kept
 * on OpenAI's side, so the model's reasoning comes back only so). The connection's body fields are
 * merged in last, as for chat completions.
 */
export function responsesBody(request: ChatRequest, extras: BodyExtras = {}, serverTools: readonly Record<string, unknown>[] = []): Record<string, unknown> {
  const system: string[] = [];
  const input: Record<string, unknown>[] = [];
  for (const message of request.messages) {
    if (message.role === "system") system.push(message.content);
    else addItems(message, input);
  }
  const body: Record<string, unknown> = { model: request.model };
  if (system.length > 0) body.instructions = system.join("\n\n");
  body.input = input;
  const tools: Record<string, unknown>[] = (request.tools ?? []).map((t) => ({ type: "function", name: t.function.name, description: t.function.description, parameters: t.function.parameters, strict: false }));
  tools.push(...serverTools);
  if (tools.length > 0) body.tools = tools;
  body.stream = true;
  body.store = false;
  body.include = ["reasoning.encrypted_content"];
  if (request.effort !== "off") body.reasoning = { effort: request.effort, summary: "auto" };
  const maxTokens = request.maxTokens ?? extras.maxOutput;
  if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
  return extras.body ? Object.assign(body, extras.body) : body;
}

function addItems(message: Exclude<ChatMessage, { role: "system" }>, input: Record<string, unknown>[]): void {
  switch (message.role) {
    case "user":
      input.push({ type: "message", role: "user", content: userContent(message.content) });
      return;
    case "tool":
      // function_call_output has no error flag (platform.openai.com/docs/api-reference/responses/create, input items): a failed call's output says it failed.
      input.push({ type: "function_call_output", call_id: message.tool_call_id, output: message.content });
      return;
    case "assistant":
      for (const carried of message.carry ?? []) if (carried.api === "responses") input.push(carried.item);
      if (message.content) input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: message.content }] });
      for (const call of message.tool_calls ?? []) input.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
}

function userContent(content: string | ContentPart[]): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return content.map((part) => (part.type === "text" ? { type: "input_text", text: part.text } : { type: "input_image", image_url: part.image_url.url }));
}
