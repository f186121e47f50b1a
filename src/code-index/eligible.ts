/** A file larger than this is left out: at this size it is data or generated, not code a person reads. */
export const MAX_FILE_BYTES = 512 * 1024;

/** Names whose content is no source a search should answer with: binaries, media, archives, lock files. */
const BINARY_NAME = /\.(png|jpe?g|gif|bmp|ico|icns|webp|avif|tiff?|psd|pdf|zip|gz|tgz|bz2|xz|zst|7z|rar|jar|war|class|o|a|so|dylib|dll|exe|bin|wasm|pyc|pyo|woff2?|ttf|otf|eot|mp[34]|mov|avi|mkv|webm|wav|flac|ogg|sqlite3?|db|dat|pack|idx|node)$/i;
const GENERATED_NAME =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|poetry\.lock|Pipfile\.lock|uv\.lock|composer\.lock|Gemfile\.lock|go\.sum|flake\.lock)$|\.min\.(js|css|mjs)$|\.(map|snap)$|\.pb\.go$|_pb2(_grpc)?\.py$|\.g\.dart$|\.generated\.\w+$|\.designer\.cs$/i;
const GENERATED_DIR = /(^|\/)(node_modules|dist|build|out|target|vendor|coverage|\.next|\.nuxt|__pycache__|\.venv|venv|\.git)\//;
/** What generators write at a file's top (Go's, protoc's, and the usual words). */
const GENERATED_MARK = /@generated|Code generated .* DO NOT EDIT|DO NOT EDIT|auto-?generated/i;

/** Why a file is left out by its name alone (read nothing), or null. */
export function leftOutByName(path: string): string | null {
  if (BINARY_NAME.test(path)) return "binary";
  if (GENERATED_NAME.test(path) || GENERATED_DIR.test(path)) return "generated";
  return null;
}

/**
 * The file's text when it is source to index, else why it is left out: binary (a NUL byte, or not
 * UTF-8), minified (long lines), generated (a generator's mark in its first lines), too large.
 */
export function sourceText(bytes: Uint8Array): { text: string } | { skipped: string } {
  if (bytes.byteLength > MAX_FILE_BYTES) return { skipped: "too large" };
  if (bytes.subarray(0, 8192).includes(0)) return { skipped: "binary" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { skipped: "binary" };
  }
  if (minified(text)) return { skipped: "minified" };
  if (GENERATED_MARK.test(text.slice(0, 600).split("\n", 6).join("\n"))) return { skipped: "generated" };
  return { text };
}

/** Few, very long lines: what a minifier or a bundler leaves. */
function minified(text: string): boolean {
  if (text.length < 2_000) return false;
  let lines = 1;
  let longest = 0;
  let from = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    longest = Math.max(longest, at - from);
    from = at + 1;
    lines += 1;
  }
  longest = Math.max(longest, text.length - from);
  return longest > 1_000 && text.length / lines > 200;
}
