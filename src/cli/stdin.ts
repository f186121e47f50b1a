import { fstatSync } from "node:fs";
import { MAX_BLOCK_BYTES } from "../front/blocks.ts";
import { UserError } from "../errors.ts";

/**
 * Whether stdin is something piped or redirected in (`git diff | lembas run …`, `< file`): a pipe, a
 * file or a socket. A terminal, /dev/null or a closed stdin is not read.
 */
export function stdinPiped(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}

/**
 * All of stdin as text, read up to one block's limit (10 MiB): past it the read stops at once and
 * says so, rather than holding the whole pipe in memory to refuse it after.
 */
export async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of Bun.stdin.stream()) {
    size += chunk.length;
    if (size > MAX_BLOCK_BYTES) {
      throw new UserError(`stdin is more than 10 MiB (${MAX_BLOCK_BYTES} bytes), the limit of one attachment: pipe in less, or name a file as @path`, 2);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
