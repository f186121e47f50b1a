/**
 * An instance's answer read as text, at most `max` bytes: a body past it (a Content-Length that
 * says so, or the bytes as they come) is given up at once, never read whole. A body that breaks
 * while read (a timeout's abort) throws, as `response.text()` does.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

export async function answerText(response: Response, max = MAX_ANSWER_BYTES): Promise<{ text: string } | { tooLarge: true }> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => {});
    return { tooLarge: true };
  }
  if (!response.body) return { text: "" };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => {});
      return { tooLarge: true };
    }
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode() };
}

/** The sentence for an answer over the cap. */
export function tooLargeWhy(max = MAX_ANSWER_BYTES): string {
  return `its answer is larger than ${Math.round(max / 1024)} KB: not read`;
}
