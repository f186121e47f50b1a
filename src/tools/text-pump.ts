/** The part of a stream reader used here (Bun's and node:stream/web's reader types differ). */
export type ByteReader = { read(): Promise<{ done: boolean; value?: Uint8Array }> };

/**
 * Hands a byte stream on as text (UTF-8, split characters kept whole across chunks) until it ends
 * or breaks: what came before a break is kept.
 */
export async function pumpText(reader: ByteReader, onText: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (let chunk = await reader.read(); !chunk.done && chunk.value; chunk = await reader.read()) {
      onText(decoder.decode(chunk.value, { stream: true }));
    }
  } catch {
    // the stream broke (or was cancelled once the command ended): what came is kept
  }
  onText(decoder.decode());
}
