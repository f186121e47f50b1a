import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { type EngineHarness, engineHarness, ofType, person, step } from "../support/engine.ts";

/** Two servers on loopback: two hosts as fetch counts them (a host is its name and port). */
let one: ReturnType<typeof Bun.serve>;
let two: ReturnType<typeof Bun.serve>;
const serve = (text: string) => Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(text, { headers: { "content-type": "text/plain" } }) });
beforeAll(() => {
  one = serve("from one");
  two = serve("from two");
});
afterAll(async () => {
  await one.stop(true);
  await two.stop(true);
});

let h: EngineHarness;
beforeEach(async () => {
  // The guard is relaxed for this machine's 127.0.0.1 only, as a person would for a local docs server.
  h = await engineHarness({ config: { fetch: { allow_private: ["127.0.0.1"] } } });
});
afterEach(() => h.close());

const fetchCall = (server: ReturnType<typeof Bun.serve>, path: string) => ({ name: "fetch", arguments: { url: `http://127.0.0.1:${server.port}${path}` } });

test("a host not allowed for the session asks even in plan mode; allowed once, its next page asks again; another host asks", async () => {
  h.model.push(
    step({ toolCalls: [fetchCall(one, "/a")] }),
    step({ toolCalls: [fetchCall(one, "/b")] }),
    step({ toolCalls: [fetchCall(two, "/c")] }),
    step({ text: "ok" }),
  );
  const session = await h.session({ mode: "plan" });
  const who = person([{ outcome: "once" }, { outcome: "deny" }, { outcome: "deny" }]);
  session.interaction = who;
  await session.prompt({ text: "read the docs" });
  const asked = (server: ReturnType<typeof Bun.serve>, path: string) => [
    `Fetch http://127.0.0.1:${server.port}${path}`,
    "fetch",
    `127.0.0.1:${server.port} is a host not allowed for this session`,
    `fetching from 127.0.0.1:${server.port}, for this session`,
  ];
  expect(who.asked.map((r) => [r.title, r.kind, r.reason, r.always])).toEqual([asked(one, "/a"), asked(one, "/b"), asked(two, "/c")]);
  const ends = ofType(h.events(session), "tool_end");
  expect(ends.map((e) => [e.isError, e.output.split("\n").at(-1)])).toEqual([[false, "from one"]]);
  expect(ofType(h.events(session), "tool_denied")).toHaveLength(2);
});

test("a host allowed for the session is not asked about again, in this session only", async () => {
  h.model.push(step({ toolCalls: [fetchCall(one, "/a")] }), step({ toolCalls: [fetchCall(one, "/b")] }), step({ text: "ok" }));
  const session = await h.session({ mode: "manual" });
  const who = person([{ outcome: "session" }]);
  session.interaction = who;
  await session.prompt({ text: "read the docs" });
  expect(who.asked).toHaveLength(1);
  expect(ofType(h.events(session), "tool_end").map((e) => e.output.split("\n").at(-1))).toEqual(["from one", "from one"]);

  h.model.push(step({ toolCalls: [fetchCall(one, "/c")] }), step({ text: "ok" }));
  const other = await h.session({ mode: "manual" });
  const asker = person([{ outcome: "deny" }]);
  other.interaction = asker;
  await other.prompt({ text: "read it too" });
  expect(asker.asked).toHaveLength(1);
});

test("auto mode fetches without asking; with nobody to ask, a new host is refused", async () => {
  h.model.push(step({ toolCalls: [fetchCall(one, "/a")] }), step({ text: "ok" }));
  const auto = await h.session({ mode: "auto" });
  await auto.prompt({ text: "read" });
  expect(ofType(h.events(auto), "tool_end")[0]?.output).toEndWith("from one");

  h.model.push(step({ toolCalls: [fetchCall(one, "/a")] }), step({ text: "ok" }));
  const edit = await h.session({ mode: "edit" });
  await edit.prompt({ text: "read" });
  expect(ofType(h.events(edit), "tool_end")).toHaveLength(0);
  expect(ofType(h.events(edit), "tool_denied")).toHaveLength(1);
});

test("a private address the guard refuses is refused before the person is asked", async () => {
  const strict = await engineHarness();
  try {
    strict.model.push(step({ toolCalls: [fetchCall(one, "/a")] }), step({ text: "ok" }));
    const session = await strict.session({ mode: "edit" });
    const who = person([{ outcome: "once" }]);
    session.interaction = who;
    await session.prompt({ text: "read" });
    expect(who.asked).toEqual([]);
    const denied = ofType(strict.events(session), "tool_denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]?.reason).toContain("127.0.0.1");
    expect(ofType(strict.events(session), "tool_end")).toHaveLength(0);
  } finally {
    await strict.close();
  }
});
