import { z } from "zod";
import { errorMessage } from "../errors.ts";
import description from "./fetch.txt" with { type: "text" };
// Loaded at the first fetch: its address guard brings node:net and node:dns, half a megabyte at start-up.
import type { guardedGet } from "./guarded-get.ts";
import { pageText, refusedType } from "./page-text.ts";
import { fail, ok } from "./result.ts";
import { defineTool, MAX_RESULT_CHARS } from "./tool.ts";

/** The most bytes of a body read: past it reading stops and the result says it was cut. */
export const MAX_FETCH_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_S = 30;
const MAX_REDIRECTS = 5;
/** Room for the result's first lines within what the model is sent. */
const MAX_TEXT_CHARS = MAX_RESULT_CHARS - 500;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    url: z.string().min(1),
    timeout: z.number().int().min(1).max(120).optional().describe(`Seconds; default ${DEFAULT_TIMEOUT_S}`),
  });

/** fetch: a web page as markdown (text and JSON as they are), within a size cap and a timeout. */
export const fetchTool = defineTool({
  name: "fetch",
  description,
  schema,
  permission: "read",
  needs: ["web"],
  kind: "fetch",
  title: (input) => `Fetch ${input.url}`,
  hosts: (input) => {
    const url = URL.parse(input.url);
    return url && (url.protocol === "http:" || url.protocol === "https:") ? [url.host] : [];
  },
  // A person is not asked about a host the guard refuses anyway.
  async refusedBeforeAsking(input, ctx) {
    const url = URL.parse(input.url);
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return null;
    const { privateAddressProblem } = await import("./address-guard.ts");
    return privateAddressProblem(url.hostname, ctx.web.allowPrivate).catch(() => null);
  },
  async execute(input, ctx) {
    const url = URL.parse(input.url);
    if (!url) return fail(`${input.url} is not a URL: give a full one, such as https://example.com/page.`);
    const timeout = input.timeout ?? DEFAULT_TIMEOUT_S;
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout * 1000)]);
    let got: Awaited<ReturnType<typeof guardedGet>>;
    try {
      got = await (await import("./guarded-get.ts")).guardedGet(url, { allowPrivate: ctx.web.allowPrivate, maxBytes: MAX_FETCH_BYTES, maxRedirects: MAX_REDIRECTS, signal }, refusedType);
    } catch (error) {
      if (ctx.signal.aborted) return fail("Cancelled.");
      if (signal.aborted) return fail(`${url.href} did not answer within ${timeout} s.`);
      return fail(`${url.href} could not be fetched: ${errorMessage(error)}.`);
    }
    if ("problem" in got) return fail(got.problem);
    const page = pageText(got.bytes, got.contentType, got.url);
    if ("problem" in page) return fail(page.problem);
    const facts = [got.contentType.split(";")[0] || "no content type", `${got.bytes.length} bytes`];
    if (got.cut) facts.push(`cut: only the first ${MAX_FETCH_BYTES / 1024 / 1024} MiB were read`);
    const lines = [`${got.status >= 400 ? `HTTP ${got.status} from` : "Fetched"} ${got.url} (${facts.join(", ")})`];
    if (got.url !== url.href) lines.push(`(redirected from ${url.href})`);
    if (page.title) lines.push(`Title: ${page.title}`);
    const shown = page.text.length > MAX_TEXT_CHARS ? `${page.text.slice(0, MAX_TEXT_CHARS)}\n\n[… cut: ${page.text.length - MAX_TEXT_CHARS} more characters of the page left out …]` : page.text;
    const result = `${lines.join("\n")}\n\n${shown}`;
    const meta = { url: got.url, status: got.status, bytes: got.bytes.length, cut: got.cut || shown !== page.text };
    return got.status >= 400 ? { output: result, isError: true, meta } : ok(result, { meta });
  },
});
