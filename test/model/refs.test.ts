import { describe, expect, test } from "bun:test";
import { type ConnectionModels, type LoginModels, type RefEntry, buildNames, buildRefs, instanceRefFor, resolveRef } from "../../src/model/refs.ts";

const p2 = (name: string, models: LoginModels["models"]): LoginModels => ({ name, protocols: [1, 2], models });
const p1 = (name: string, models: LoginModels["models"]): LoginModels => ({ name, protocols: [1], models });
const conn = (name: string, ...ids: string[]): ConnectionModels => ({ name, models: ids.map((id) => ({ id })) });

function refOf(entries: RefEntry[], connection: string, servedId: string): RefEntry {
  const entry = entries.find((e) => e.connection === connection && e.servedId === servedId);
  if (!entry) throw new Error(`no entry for ${connection} ${servedId}`);
  return entry;
}

type Case = {
  rule: string;
  connections?: ConnectionModels[];
  logins: LoginModels[];
  /** [connection or login, served id, expected ref] */
  expect: [string, string, string][];
};

const cases: Case[] = [
  {
    rule: "a protocol 2 instance's model is its served id <provider>/<model>",
    logins: [p2("lembas", [{ id: "deepseek/deepseek-flash" }, { id: "openai/gpt-5" }])],
    expect: [
      ["lembas", "deepseek/deepseek-flash", "deepseek/deepseek-flash"],
      ["lembas", "openai/gpt-5", "openai/gpt-5"],
    ],
  },
  {
    rule: "the provider field wins over the id's prefix",
    logins: [p2("lembas", [{ id: "flash", provider: "deepseek" }, { id: "deepseek/pro", provider: "deepseek" }])],
    expect: [
      ["lembas", "flash", "deepseek/flash"],
      ["lembas", "deepseek/pro", "deepseek/pro"],
    ],
  },
  {
    rule: "only the part before the first / is the provider",
    logins: [p2("lembas", [{ id: "openrouter/meta-llama/llama-4" }])],
    expect: [["lembas", "openrouter/meta-llama/llama-4", "openrouter/meta-llama/llama-4"]],
  },
  {
    rule: "a device connection with the provider's name keeps the short form; the instance's is <login>/<provider>/<model>",
    connections: [conn("deepseek", "deepseek-flash")],
    logins: [p2("lembas", [{ id: "deepseek/deepseek-flash" }, { id: "openai/gpt-5" }])],
    expect: [
      ["deepseek", "deepseek-flash", "deepseek/deepseek-flash"],
      ["lembas", "deepseek/deepseek-flash", "lembas/deepseek/deepseek-flash"],
      ["lembas", "openai/gpt-5", "openai/gpt-5"],
    ],
  },
  {
    rule: "a device connection's name takes the short form even when it listed no models",
    connections: [{ name: "deepseek" }],
    logins: [p2("lembas", [{ id: "deepseek/deepseek-flash" }])],
    expect: [["lembas", "deepseek/deepseek-flash", "lembas/deepseek/deepseek-flash"]],
  },
  {
    rule: "two instances serving one provider: the one logged in first keeps the short form",
    logins: [
      p2("work", [{ id: "deepseek/deepseek-flash" }]),
      p2("home", [{ id: "deepseek/deepseek-flash" }, { id: "deepseek/deepseek-pro" }, { id: "mistral/large" }]),
    ],
    expect: [
      ["work", "deepseek/deepseek-flash", "deepseek/deepseek-flash"],
      ["home", "deepseek/deepseek-flash", "home/deepseek/deepseek-flash"],
      // the provider is work's, so even a model only home serves is named by login
      ["home", "deepseek/deepseek-pro", "home/deepseek/deepseek-pro"],
      ["home", "mistral/large", "mistral/large"],
    ],
  },
  {
    rule: "login order decides, not the names",
    logins: [p2("zeta", [{ id: "deepseek/flash" }]), p2("alpha", [{ id: "deepseek/flash" }])],
    expect: [
      ["zeta", "deepseek/flash", "deepseek/flash"],
      ["alpha", "deepseek/flash", "alpha/deepseek/flash"],
    ],
  },
  {
    rule: "an instance not speaking protocol 2 serves bare ids: <login>/<id>",
    logins: [p1("old", [{ id: "qwen2.5-coder" }])],
    expect: [["old", "qwen2.5-coder", "old/qwen2.5-coder"]],
  },
  {
    rule: "an id with a / from an instance not speaking protocol 2 is just an id",
    logins: [p1("old", [{ id: "deepseek/deepseek-flash" }]), p2("new", [{ id: "deepseek/deepseek-flash" }])],
    expect: [
      ["old", "deepseek/deepseek-flash", "old/deepseek/deepseek-flash"],
      // old named no provider, so it holds none: the later protocol 2 instance keeps the short form
      ["new", "deepseek/deepseek-flash", "deepseek/deepseek-flash"],
    ],
  },
  {
    rule: "the provider field counts from any instance",
    logins: [p1("old", [{ id: "deepseek-flash", provider: "deepseek" }])],
    expect: [["old", "deepseek-flash", "deepseek/deepseek-flash"]],
  },
  {
    rule: "a protocol 2 instance's id without / and without provider stays <login>/<id>",
    logins: [p2("lembas", [{ id: "house-model" }])],
    expect: [["lembas", "house-model", "lembas/house-model"]],
  },
  {
    rule: "protocols [2] alone is protocol 2",
    logins: [{ name: "lembas", protocols: [2], models: [{ id: "deepseek/flash" }] }],
    expect: [["lembas", "deepseek/flash", "deepseek/flash"]],
  },
  {
    rule: "device connection models are <connection>/<model>, ids with / included",
    connections: [conn("local", "qwen2.5-coder", "hf.co/org/model:Q4")],
    logins: [],
    expect: [
      ["local", "qwen2.5-coder", "local/qwen2.5-coder"],
      ["local", "hf.co/org/model:Q4", "local/hf.co/org/model:Q4"],
    ],
  },
  {
    rule: "a provider named like another login goes long, so it cannot clash with that login's refs",
    logins: [p1("work", [{ id: "x" }]), p2("home", [{ id: "work/x" }])],
    expect: [
      ["work", "x", "work/x"],
      ["home", "work/x", "home/work/x"],
    ],
  },
];

describe("buildRefs: the spec's naming rules", () => {
  for (const c of cases) {
    test(c.rule, () => {
      const entries = buildRefs({ connections: c.connections ?? [], logins: c.logins });
      for (const [connection, servedId, ref] of c.expect) {
        const entry = refOf(entries, connection, servedId);
        expect(entry.ref).toBe(ref);
        expect(entry.login).toBe(c.logins.some((l) => l.name === connection) ? connection : null);
      }
      expect(new Set(entries.map((e) => e.ref)).size).toBe(entries.length);
    });
  }

  test("entries come in order: device connections, then logins in login order", () => {
    const entries = buildRefs({
      connections: [conn("local", "a")],
      logins: [p2("work", [{ id: "p/b" }]), p1("old", [{ id: "c" }])],
    });
    expect(entries.map((e) => e.ref)).toEqual(["local/a", "p/b", "old/c"]);
  });
});

describe("old forms still name the same model", () => {
  const entries = buildRefs({
    connections: [conn("deepseek", "deepseek-chat")],
    logins: [
      p2("work", [{ id: "openai/gpt-5" }, { id: "deepseek/deepseek-flash" }]),
      p2("home", [{ id: "openai/gpt-5" }]),
      p1("old", [{ id: "qwen" }, { id: "llama", provider: "meta" }]),
    ],
  });

  const table: [string, string, string][] = [
    // [input, login, served id]
    ["openai/gpt-5", "work", "openai/gpt-5"],
    ["work/gpt-5", "work", "openai/gpt-5"],
    ["work/openai/gpt-5", "work", "openai/gpt-5"],
    ["home/openai/gpt-5", "home", "openai/gpt-5"],
    ["home/gpt-5", "home", "openai/gpt-5"],
    ["work/deepseek/deepseek-flash", "work", "deepseek/deepseek-flash"],
    ["work/deepseek-flash", "work", "deepseek/deepseek-flash"],
    ["old/qwen", "old", "qwen"],
    ["meta/llama", "old", "llama"],
    ["old/llama", "old", "llama"],
    ["old/meta/llama", "old", "llama"],
  ];
  for (const [input, login, servedId] of table) {
    test(`${input} → ${login}'s ${servedId}`, () => {
      const resolved = resolveRef(input, entries);
      if (!resolved.ok) throw new Error(resolved.error);
      expect(resolved.entry.login).toBe(login);
      expect(resolved.entry.connection).toBe(login);
      expect(resolved.entry.servedId).toBe(servedId);
    });
  }

  test("aliases list the old forms, not the ref itself", () => {
    expect(refOf(entries, "work", "openai/gpt-5").aliases.sort()).toEqual(["work/gpt-5", "work/openai/gpt-5"]);
    expect(refOf(entries, "home", "openai/gpt-5").aliases).toEqual(["home/gpt-5"]);
    expect(refOf(entries, "old", "qwen").aliases).toEqual([]);
  });

  test("the device connection's own model keeps its name", () => {
    const resolved = resolveRef("deepseek/deepseek-chat", entries);
    expect(resolved.ok && resolved.entry).toMatchObject({ connection: "deepseek", servedId: "deepseek-chat", login: null });
  });
});

describe("resolveRef", () => {
  const entries = buildRefs({
    connections: [conn("local", "qwen2.5-coder")],
    logins: [p2("work", [{ id: "openai/gpt-5" }, { id: "azure/gpt-5" }, { id: "deepseek/deepseek-flash" }])],
  });

  test("a model of a device connection resolves even when unlisted", () => {
    const resolved = resolveRef("local/llama3.2:3b", entries, ["local"]);
    expect(resolved).toEqual({
      ok: true,
      entry: { ref: "local/llama3.2:3b", connection: "local", servedId: "llama3.2:3b", login: null, aliases: [] },
    });
  });

  test("a served id only one endpoint serves finds it", () => {
    const resolved = resolveRef("qwen2.5-coder", entries);
    expect(resolved.ok && resolved.entry.ref).toBe("local/qwen2.5-coder");
  });

  test("an old form two models share asks which", () => {
    const resolved = resolveRef("work/gpt-5", entries);
    expect(resolved).toEqual({ ok: false, error: '"work/gpt-5" could be openai/gpt-5 or azure/gpt-5: say which' });
  });

  test("an unknown ref lists close ones", () => {
    const resolved = resolveRef("deepseek/deepseek-flsh", entries);
    expect(resolved.ok).toBe(false);
    if (resolved.ok) return;
    expect(resolved.error).toBe('there is no model "deepseek/deepseek-flsh"; did you mean deepseek/deepseek-flash?');
  });

  test("an unknown ref with nothing close names some models", () => {
    const resolved = resolveRef("zzzzzzzzzzzz", entries);
    expect(!resolved.ok && resolved.error).toStartWith('there is no model "zzzzzzzzzzzz"; models include local/qwen2.5-coder, ');
  });

  test("with no models at all, the error says how to get some", () => {
    const resolved = resolveRef("anything", []);
    expect(!resolved.ok && resolved.error).toContain("add a connection to config.yaml, or log in");
  });
});

describe("instanceRefFor: the instance's served name → the device's ref", () => {
  const entries = buildRefs({
    connections: [conn("mistral", "large")],
    logins: [
      p2("work", [{ id: "deepseek/deepseek-flash" }, { id: "mistral/large" }]),
      p2("home", [{ id: "deepseek/deepseek-flash" }]),
      p1("old", [{ id: "qwen" }]),
    ],
  });
  const table: [string, string, string][] = [
    ["work", "deepseek/deepseek-flash", "deepseek/deepseek-flash"],
    ["home", "deepseek/deepseek-flash", "home/deepseek/deepseek-flash"],
    ["work", "mistral/large", "work/mistral/large"],
    ["old", "qwen", "old/qwen"],
    // not listed (yet): the protocol 1 form, which resolving then checks
    ["old", "unlisted", "old/unlisted"],
  ];
  for (const [login, served, ref] of table) {
    test(`${login} serving ${served} → ${ref}`, () => {
      expect(instanceRefFor(login, served, entries)).toBe(ref);
    });
  }
});

describe("a login whose list cannot be had keeps its short forms", () => {
  const away = (name: string, providers: string[] | null): LoginModels => ({ ...p2(name, []), unlisted: { why: "HTTP 500", providers } });

  test("the providers it served last stay its own: withheld, not given to the next login", () => {
    const { entries, withheld } = buildNames({ connections: [], logins: [away("work", ["deepseek"]), p2("home", [{ id: "deepseek/flash" }, { id: "mistral/large" }])] });
    expect(refOf(entries, "home", "deepseek/flash").ref).toBe("home/deepseek/flash");
    expect(refOf(entries, "home", "mistral/large").ref).toBe("mistral/large");
    const resolved = resolveRef("deepseek/flash", entries, [], withheld);
    expect(resolved).toEqual({ ok: false, error: "the instance work that serves deepseek/flash could not be reached: HTTP 500 (home/deepseek/flash names another instance's)" });
    expect(resolveRef("work/deepseek/flash", entries, [], withheld).ok).toBe(false);
    expect(resolveRef("home/deepseek/flash", entries, [], withheld).ok).toBe(true);
  });

  test("one never listed holds every provider no earlier login holds", () => {
    const { entries, withheld } = buildNames({
      connections: [],
      logins: [p2("first", [{ id: "openai/gpt-5" }]), away("work", null), p2("home", [{ id: "openai/gpt-5" }, { id: "deepseek/flash" }])],
    });
    expect(refOf(entries, "first", "openai/gpt-5").ref).toBe("openai/gpt-5");
    expect(refOf(entries, "home", "deepseek/flash").ref).toBe("home/deepseek/flash");
    const resolved = resolveRef("deepseek/flash", entries, [], withheld);
    expect(!resolved.ok && resolved.error).toStartWith("which instance serves deepseek/flash is not known: work, logged in to earlier,");
  });

  test("a short form the first login holds never finds a later login's model by its served id", () => {
    const names = buildNames({ connections: [], logins: [p2("work", [{ id: "deepseek/chat" }]), p2("home", [{ id: "deepseek/flash" }])] });
    expect(refOf(names.entries, "home", "deepseek/flash").ref).toBe("home/deepseek/flash");
    const resolved = resolveRef("deepseek/flash", names.entries, [], names.withheld, names.holders);
    expect(resolved.ok).toBe(false);
    expect(!resolved.ok && resolved.error).toBe(
      "work serves the deepseek models here and has no deepseek/flash; home/deepseek/flash is another instance's: name it so to use it",
    );
    expect(resolveRef("home/deepseek/flash", names.entries, [], names.withheld, names.holders).ok).toBe(true);
    expect(resolveRef("deepseek/chat", names.entries, [], names.withheld, names.holders)).toMatchObject({ ok: true, entry: { login: "work" } });
  });

  test("a later login away changes nothing for an earlier one", () => {
    const { entries, withheld } = buildNames({ connections: [], logins: [p2("work", [{ id: "deepseek/flash" }]), away("home", ["deepseek"])] });
    const resolved = resolveRef("deepseek/flash", entries, [], withheld);
    expect(resolved.ok && resolved.entry.login).toBe("work");
  });
});
