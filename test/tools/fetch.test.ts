import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { unknownKey } from "../../src/config/keys.ts";
import { Config } from "../../src/config/schema.ts";
import { isPrivateAddress, privateAddressProblem } from "../../src/tools/address-guard.ts";
import { fetchTool, MAX_FETCH_BYTES } from "../../src/tools/fetch.ts";
import { guardedGet } from "../../src/tools/guarded-get.ts";
import { htmlToMarkdown } from "../../src/tools/html-markdown.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

const PAGE = `<!doctype html><html><head><title>Docs &amp; more</title><style>body{color:red}</style><script>alert(1)</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Getting started</h1><p>Install it with <code>bun add x</code>, then read <a href="/guide">the guide</a>.</p>
<h2>Steps</h2><ol><li>one</li><li>two</li></ol>
<pre><code class="language-ts">const a = 1 &lt; 2;
if (a) run();</code></pre>
<footer>© someone</footer></body></html>`;

let server: ReturnType<typeof Bun.serve>;
let base: string;
beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      const port = server.port;
      if (path === "/page") return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (path === "/text") return new Response("plain *text*\n", { headers: { "content-type": "text/plain" } });
      if (path === "/json") return new Response('{"a":[1,2]}', { headers: { "content-type": "application/json" } });
      if (path === "/image") return new Response(new Uint8Array([137, 80, 78, 71, 0, 0]), { headers: { "content-type": "image/png" } });
      if (path === "/moved") return Response.redirect(`http://127.0.0.1:${port}/page`, 302);
      if (path === "/to-localhost") return Response.redirect(`http://localhost:${port}/page`, 302);
      if (path === "/host") return new Response(`host: ${request.headers.get("host")}`, { headers: { "content-type": "text/plain" } });
      if (path === "/to-other-host") return Response.redirect(`http://127.0.0.2:${port}/text`, 302);
      if (path === "/to-https") return new Response(null, { status: 301, headers: { location: `https://127.0.0.1:${port}/text` } });
      if (path === "/to-file") return new Response(null, { status: 301, headers: { location: "file:///etc/passwd" } });
      if (path === "/loop") return Response.redirect(`http://127.0.0.1:${port}/loop`, 302);
      if (path === "/missing") return new Response("no such page", { status: 404, headers: { "content-type": "text/plain" } });
      if (path === "/endless") {
        const chunk = new Uint8Array(64 * 1024).fill(97);
        return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }), { headers: { "content-type": "text/plain" } });
      }
      if (path === "/hang") return new Promise<Response>(() => {});
      return new Response("?", { status: 500 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.stop(true);
  cleanupTempDirs();
});

/** A tool context whose fetch may reach this machine's 127.0.0.1 (the test server) and nothing else private. */
const loopbackAllowed = () => makeContext({ allowPrivate: ["127.0.0.1"] }).ctx;

describe("fetch", () => {
  test("a page becomes markdown: title, headings, links made absolute, lists, code; no script, style or navigation", async () => {
    const result = await run(fetchTool, { url: `${base}/page` }, loopbackAllowed());
    expect(result.isError).toBeUndefined();
    expect(result.output).toStartWith(`Fetched ${base}/page (text/html, `);
    expect(result.output).toContain("Title: Docs & more");
    expect(result.output).toContain(
      `# Getting started\n\nInstall it with \`bun add x\`, then read [the guide](${base}/guide).\n\n## Steps\n\n1. one\n2. two\n\n\`\`\`\nconst a = 1 < 2;\nif (a) run();\n\`\`\``,
    );
    for (const noise of ["alert(1)", "color:red", "About", "someone"]) expect(result.output).not.toContain(noise);
  });

  test("plain text and JSON pass through; a binary is refused with a sentence", async () => {
    const ctx = loopbackAllowed();
    expect((await run(fetchTool, { url: `${base}/text` }, ctx)).output).toEndWith("\n\nplain *text*\n");
    expect((await run(fetchTool, { url: `${base}/json` }, ctx)).output).toEndWith('\n\n{"a":[1,2]}');
    expect(await run(fetchTool, { url: `${base}/image` }, ctx)).toMatchObject({
      isError: true,
      output: `${base}/image is image/png, not text: fetch reads web pages, plain text and JSON.`,
    });
  });

  test("a redirect is followed and said; a redirect loop and one to another scheme stop with a sentence", async () => {
    const ctx = loopbackAllowed();
    const moved = await run(fetchTool, { url: `${base}/moved` }, ctx);
    expect(moved.output).toStartWith(`Fetched ${base}/page (text/html`);
    expect(moved.output).toContain(`(redirected from ${base}/moved)`);
    expect((await run(fetchTool, { url: `${base}/loop` }, ctx)).output).toBe(`${base}/loop redirected more than 5 times.`);
    expect((await run(fetchTool, { url: `${base}/to-file` }, ctx)).output).toBe("file:///etc/passwd is not an http(s) URL: fetch reads only web pages.");
  });

  test("only http(s) URLs", async () => {
    const ctx = loopbackAllowed();
    expect((await run(fetchTool, { url: "file:///etc/passwd" }, ctx)).output).toBe("file:///etc/passwd is not an http(s) URL: fetch reads only web pages.");
    expect((await run(fetchTool, { url: "not a url" }, ctx)).output).toStartWith("not a url is not a URL");
  });

  test("a body past the cap stops being read and the result says it was cut", async () => {
    const result = await run(fetchTool, { url: `${base}/endless` }, loopbackAllowed());
    expect(result.meta).toMatchObject({ bytes: MAX_FETCH_BYTES, cut: true });
    expect(result.output).toContain("cut: only the first 5 MiB were read");
    expect(result.output).toContain("more characters of the page left out");
    expect(result.output.length).toBeLessThanOrEqual(30_000);
  });

  test("a server that does not answer is given up after the timeout", async () => {
    // /hang never answers: a fetch not given up at its 1 s would time the test out.
    const result = await run(fetchTool, { url: `${base}/hang`, timeout: 1 }, loopbackAllowed());
    expect(result).toMatchObject({ isError: true, output: `${base}/hang did not answer within 1 s.` });
  });

  test("an HTTP error is a failed result with the server's text", async () => {
    const result = await run(fetchTool, { url: `${base}/missing` }, loopbackAllowed());
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith(`HTTP 404 from ${base}/missing`);
    expect(result.output).toEndWith("no such page");
  });

  test("title, hosts for the approval, and kind", () => {
    const input = { url: "https://example.com:8443/a?b" };
    expect(fetchTool.title(input, makeContext().ctx)).toBe("Fetch https://example.com:8443/a?b");
    expect(fetchTool.hosts?.(input)).toEqual(["example.com:8443"]);
    expect(fetchTool.hosts?.({ url: "file:///x" })).toEqual([]);
    expect(fetchTool.kind).toBe("fetch");
  });
});

describe("attack: fetch asks per host, and a redirect cannot go around that", () => {
  test("a redirect to another host is not followed: the model is told to fetch it itself, which asks the person", async () => {
    const ctx = makeContext({ allowPrivate: true }).ctx;
    const result = await run(fetchTool, { url: `${base}/to-other-host` }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      `${base}/to-other-host redirected to http://127.0.0.2:${server.port}/text, on another host, which was not fetched: fetch http://127.0.0.2:${server.port}/text itself to follow it (a host not allowed for the session asks the person).`,
    );
    // The same host on another scheme is the same host: followed (here it fails, as the test server speaks no TLS).
    const upgraded = await run(fetchTool, { url: `${base}/to-https`, timeout: 5 }, ctx);
    expect(upgraded.output).not.toContain("on another host");
  });
});

describe("attack: the request goes to the address the guard checked (DNS rebinding)", () => {
  const get = (url: string, resolve: (host: string) => Promise<string[]>, allowPrivate: string[] = ["rebind.test"]) =>
    guardedGet(new URL(url), { allowPrivate, maxBytes: 1_000, maxRedirects: 0, signal: AbortSignal.timeout(5_000), resolve }, () => null);

  test("a name is resolved once, by the guard, and the request is sent to that address with the name as its Host", async () => {
    const asked: string[] = [];
    const got = await get(`http://rebind.test:${server.port}/host`, async (host) => {
      asked.push(host);
      // A rebinding server answers the next lookup with another address: there must be no next lookup.
      return asked.length === 1 ? ["127.0.0.1"] : ["10.9.9.9"];
    });
    expect(asked).toEqual(["rebind.test"]);
    expect("bytes" in got && new TextDecoder().decode(got.bytes)).toBe(`host: rebind.test:${server.port}`);
    expect("url" in got && got.url).toBe(`http://rebind.test:${server.port}/host`);
  });

  test("through the person's proxy (HTTP_PROXY) the request names the host, not the address: the proxy resolves it", async () => {
    // A raw socket: the request line as sent (Bun.serve would make the URL from the Host header).
    const proxy = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, data) {
          const line = data.toString().split("\r\n")[0] ?? "";
          const body = `proxy got ${line}`;
          socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
        },
      },
    });
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    delete process.env.http_proxy;
    try {
      const got = await get(`http://rebind.test:${server.port}/host`, async () => ["127.0.0.1"]);
      expect("bytes" in got && new TextDecoder().decode(got.bytes)).toBe(`proxy got GET http://rebind.test:${server.port}/host HTTP/1.1`);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      proxy.stop(true);
    }
  });

  test("a name lookup that never answers is given up with the timeout", async () => {
    // The lookup never answers: a get not given up at the 300 ms signal would time the test out.
    const lookup = guardedGet(new URL("http://slow.test/"), { allowPrivate: false, maxBytes: 1_000, maxRedirects: 0, signal: AbortSignal.timeout(300), resolve: () => new Promise(() => {}) }, () => null);
    await expect(lookup).rejects.toThrow();
  });

  test("a name with a public and a private address is refused, whichever comes first", async () => {
    for (const answer of [["8.8.8.8", "127.0.0.2"], ["127.0.0.2", "8.8.8.8"]]) {
      expect(await get("http://both.test/", async () => answer)).toEqual({
        problem: "both.test resolves to 127.0.0.2, a loopback, link-local or private address, which fetch does not reach unless the person allows it (config fetch.allow_private).",
      });
    }
  });
});

describe("attack: an HTML page cannot blow up the conversion", () => {
  test("lists nested 20,000 deep become markdown of about the page's size, not its square", () => {
    const html = "<ul><li>x".repeat(20_000);
    const { markdown } = htmlToMarkdown(html, "http://example.com/");
    expect(markdown.length).toBeLessThan(html.length * 4);
    expect(markdown.split("\n").at(-1)).toBe(`${"  ".repeat(8)}- x`);
  });

  const nestedDivs = (depth: number) => `<html><body>${"<div>x".repeat(depth)}<p>the innermost words</p>${"</div>".repeat(depth)}<p>after them</p></body></html>`;

  test("divs nested by the hundred thousand (4.8 MB, as a page once was) are read whole, their text kept", () => {
    // No wall-clock limit here: on a loaded machine the 10 s last resort cut the page (the time is the bench's).
    const { markdown } = htmlToMarkdown(nestedDivs(400_000), "http://example.com/", Number.POSITIVE_INFINITY);
    // Read whole: every level's word, deeper ones than the conversion follows too, each a word of its own.
    expect(markdown.match(/x/g)?.length).toBe(400_000);
    expect(markdown.slice(-60)).toEndWith("x x x the innermost words\n\nafter them");
  });

  test("the conversion's work grows with the page's size, not its square: twice as deep, about twice the work", () => {
    const small = htmlToMarkdown(nestedDivs(20_000), "http://example.com/").work;
    const large = htmlToMarkdown(nestedDivs(40_000), "http://example.com/").work;
    expect(large / small).toBeLessThan(2.5);
  });

  test("an element left out (svg, script) deeper than the conversion follows stops it there, said; before it the page is read", () => {
    const html = `<p>first words</p>${"<div>".repeat(1000)}<svg><text>icon</text></svg><p>never read</p>${"</div>".repeat(1000)}`;
    const { markdown } = htmlToMarkdown(html, "http://example.com/");
    expect(markdown).toStartWith("first words");
    expect(markdown).not.toContain("icon");
    expect(markdown).toEndWith("[… the rest of the page is left out: it nests its elements more than 256 deep]");
  });

  test("a self-closed <svg/> leaves out nothing after it", () => {
    const { markdown } = htmlToMarkdown("<p>one <svg/> two</p><p>three</p>", "http://example.com/");
    expect(markdown).toBe("one two\n\nthree");
  });

  test("the page's title is its first <title>, not an SVG icon's <title> after it, and no title is body text", () => {
    const html = `<html><title>Docs</title><body><p>Read <svg><title>external link</title></svg> on.</p></body></html>`;
    const { title, markdown } = htmlToMarkdown(html, "http://example.com/");
    expect(title).toBe("Docs");
    expect(markdown).toBe("Read on.");
  });

  test("a title that never closes (the whole page in it) is cut to a line", () => {
    const { title } = htmlToMarkdown(`<title>${"word ".repeat(20_000)}`, "http://example.com/");
    expect(title?.length).toBe(201);
    expect(title).toEndWith("…");
  });
});

describe("fetch refuses loopback and private addresses unless allowed", () => {
  test("127.0.0.1 and a name resolving to it (localhost) are refused by default, before any request", async () => {
    const { ctx } = makeContext();
    expect(await run(fetchTool, { url: `${base}/page` }, ctx)).toMatchObject({
      isError: true,
      output: `127.0.0.1 is a loopback, link-local or private address, which fetch does not reach unless the person allows it (config fetch.allow_private).`,
    });
    const named = await run(fetchTool, { url: `http://localhost:${server.port}/page` }, ctx);
    expect(named.isError).toBe(true);
    expect(named.output).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback, link-local or private address/);
  });

  test("a redirect from an allowed host to loopback is refused at that hop", async () => {
    const result = await run(fetchTool, { url: `${base}/to-localhost` }, loopbackAllowed());
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith(`${base}/to-localhost redirected to http://localhost:${server.port}/page: localhost resolves to`);
  });

  test("fetch.allow_private: true reaches them all", async () => {
    const result = await run(fetchTool, { url: `${base}/text` }, makeContext({ allowPrivate: true }).ctx);
    expect(result.isError).toBeUndefined();
  });

  test("the addresses refused", () => {
    const refused = ["127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1%eth0", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe"];
    const public_ = ["8.8.8.8", "172.32.0.1", "172.15.0.1", "192.169.0.1", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"];
    expect(refused.filter((a) => !isPrivateAddress(a))).toEqual([]);
    expect(public_.filter((a) => isPrivateAddress(a))).toEqual([]);
  });

  test("also refused: shared address space (CGNAT, Tailscale), multicast, broadcast, site-local, and NAT64 forms of private IPv4", () => {
    const refused = [
      "100.64.0.0", "100.100.100.100", "100.127.255.255",
      "224.0.0.1", "239.255.255.250", "255.255.255.255",
      "ff02::1", "ff05::1:3", "fec0::1", "feff::1",
      "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1", "64:ff9b::100.64.0.1",
    ];
    const public_ = ["100.63.255.255", "100.128.0.0", "223.255.255.255", "255.255.255.254", "fe00::1", "fbff::1", "64:ff9b::8.8.8.8", "64:ff9b:1::127.0.0.1"];
    expect(refused.filter((a) => !isPrivateAddress(a))).toEqual([]);
    expect(public_.filter((a) => isPrivateAddress(a))).toEqual([]);
  });

  test("every address of this device's own interfaces is refused, a public one too", async () => {
    const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
    const reached: string[] = [];
    for (const address of own) if ((await privateAddressProblem(address, false)) === null) reached.push(address);
    expect(reached).toEqual([]);
  });

  // A service listening on every interface (a dev server, a database's web console) is the person's, whatever the address.
  const publicOwn = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((a) => a.family === "IPv4" && !a.internal && !isPrivateAddress(a.address))?.address;
  if (!publicOwn) console.warn("SKIPPED: this machine has no public IPv4 address of its own to fetch itself through");
  test.skipIf(!publicOwn)("a service of this device reached through its own public address is refused, before any request", async () => {
    let asked = 0;
    const local = Bun.serve({ hostname: "0.0.0.0", port: 0, fetch: () => (asked++, new Response("the person's own service")) });
    try {
      const result = await run(fetchTool, { url: `http://${publicOwn}:${local.port}/admin` }, makeContext().ctx);
      expect(result).toMatchObject({
        isError: true,
        output: `${publicOwn} is an address of this device's own, which fetch does not reach unless the person allows it (config fetch.allow_private).`,
      });
      expect(asked).toBe(0);
      // Allowed by the person, it is reached (the refusal was the guard's, not the network's).
      expect((await run(fetchTool, { url: `http://${publicOwn}:${local.port}/admin` }, makeContext({ allowPrivate: [publicOwn ?? ""] }).ctx)).output).toEndWith("the person's own service");
    } finally {
      await local.stop(true);
    }
  });

  test("a host that does not resolve is a sentence", async () => {
    expect(await privateAddressProblem("no-such-host.invalid", false)).toBe("no-such-host.invalid could not be resolved to an address.");
  });

  test("fetch.allow_private is a config key `lembas config set` knows, a boolean or a list of hosts", () => {
    expect(unknownKey("fetch.allow_private")).toBeNull();
    expect(Config.parse({}).fetch.allow_private).toBe(false);
    expect(Config.parse({ fetch: { allow_private: ["docs.local"] } }).fetch.allow_private).toEqual(["docs.local"]);
    expect(Config.safeParse({ fetch: { allow_private: "yes" } }).success).toBe(false);
  });
});

describe("htmlToMarkdown", () => {
  test("nested lists, emphasis, tables, images and entities", () => {
    const html = `<ul><li>a <strong>b</strong> <em>c</em><ul><li>d</li></ul></li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td></tr></table><p><img src="i.png" alt="pic"> &#8364; &#x41; &nbsp;&lt;tag&gt;</p><a href="javascript:void(0)">js</a>`;
    expect(htmlToMarkdown(html, "https://ex.com/d/").markdown).toBe("- a **b** _c_\n  - d\n\n| k | v |\n| x | 1 |\n\n![pic](https://ex.com/d/i.png) € A <tag>\n\njs");
  });
});
