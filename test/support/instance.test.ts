import { afterEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { MessageSchema, RpcError, type RpcMessage, startInstance, type Instance } from "./instance.ts";
import { startModel, type ScriptedModel } from "./model.ts";

const TOKEN = "dev-token";

/** Plays the device's side of the link with Bun's WebSocket client. */
class Device {
  readonly received: RpcMessage[] = [];
  /** Frames that were not JSON. */
  readonly raw: string[] = [];
  readonly opened: Promise<boolean>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve) => {
      ws.addEventListener("open", () => resolve(true));
      ws.addEventListener("close", () => resolve(false));
    });
    this.closed = new Promise((resolve) => ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })));
    ws.addEventListener("message", (e) => {
      const text = String(e.data);
      try {
        this.received.push(MessageSchema.parse(JSON.parse(text)));
      } catch {
        this.raw.push(text);
      }
      for (const listener of this.listeners) listener();
    });
  }

  static connect(instance: Instance, token: string | null = TOKEN): Device {
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    return new Device(new WebSocket(`${instance.url.replace("http", "ws")}/api/devices/link`, { headers }));
  }

  /** Sends a frame once the socket is open. */
  sendRaw(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else void this.opened.then((open) => open && this.ws.send(text));
  }

  send(message: Record<string, unknown>): void {
    this.sendRaw(JSON.stringify({ jsonrpc: "2.0", ...message }));
  }

  hello(protocol = 2): void {
    this.send({ method: "_lembas/hello", params: { protocol, version: "0.1.0" } });
  }

  /** The first received message (from `from` on) that passes `predicate`. */
  next(predicate: (m: RpcMessage) => boolean, from = 0): Promise<RpcMessage> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.received.slice(from).find(predicate);
        if (found) {
          this.listeners.delete(listener);
          clearTimeout(timer);
          resolve(found);
        }
        return found !== undefined;
      };
      const listener = (): void => void check();
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error("device: no such message"));
      }, 2_000);
      this.listeners.add(listener);
      check();
    });
  }

  /** Resolves once `n` messages arrived. */
  count(n: number, timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`device: ${this.received.length} of ${n} messages`)), timeoutMs);
      const listener = (): void => {
        if (this.received.length < n) return;
        this.listeners.delete(listener);
        clearTimeout(timer);
        resolve();
      };
      this.listeners.add(listener);
      listener();
    });
  }
}

let instance: Instance;
let model: ScriptedModel | null = null;
const devices: Device[] = [];

function connect(token?: string | null): Device {
  const device = Device.connect(instance, token);
  devices.push(device);
  return device;
}

afterEach(async () => {
  for (const device of devices.splice(0)) device.ws.close();
  await instance.close();
  await model?.close();
  model = null;
});

describe("HTTP", () => {
  test("discovery: defaults, protocols left out, changed", async () => {
    instance = await startInstance({ token: TOKEN, name: "home" });
    const get = async (): Promise<unknown> => (await fetch(`${instance.url}/.well-known/lembas.json`)).json();
    expect(await get()).toEqual({ name: "home", protocol: 1, protocols: [1, 2] });
    instance.setDiscovery({ protocols: null });
    expect(await get()).toEqual({ name: "home", protocol: 1 });
    instance.setDiscovery({ protocol: 2, protocols: [2] });
    expect(await get()).toEqual({ name: "home", protocol: 2, protocols: [2] });
  });

  test("/api/v1/instance and /v1/* check the bearer token; /v1 reaches the model", async () => {
    model = await startModel({ replies: [{ text: "through the instance" }] });
    instance = await startInstance({ token: TOKEN, model, protocols: null });
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${instance.url}/api/v1/instance`)).status).toBe(401);
    expect(await (await fetch(`${instance.url}/api/v1/instance`, { headers: auth })).json()).toEqual({ name: "test-instance", version: "0.0.0-test" });
    expect((await fetch(`${instance.url}/v1/models`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect(await (await fetch(`${instance.url}/v1/models`, { headers: auth })).json()).toMatchObject({ data: [{ id: "test-model" }] });
    const res = await fetch(`${instance.url}/v1/chat/completions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "test-model", messages: [], stream: true }),
    });
    expect(await res.text()).toContain('"content":" instance"');
    expect(model.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    instance.setToken("rotated");
    expect((await fetch(`${instance.url}/api/v1/instance`, { headers: auth })).status).toBe(401);
  });

  test("/v1 without a model is 503", async () => {
    instance = await startInstance({ token: TOKEN });
    expect((await fetch(`${instance.url}/v1/models`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(503);
  });
});

describe("the link", () => {
  test("refuses a bad or missing token with 401, a plain GET with 426", async () => {
    instance = await startInstance({ token: TOKEN });
    expect(await connect("wrong").opened).toBe(false);
    expect(await connect(null).opened).toBe(false);
    const plain = await fetch(`${instance.url}/api/devices/link`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(plain.status).toBe(426);
    expect(instance.dials.map((d) => d.status)).toEqual([401, 401, 426]);
    expect(instance.links).toHaveLength(0);
    await expect(instance.waitForLink(50)).rejects.toThrow("dials: 401, 401, 426");
  });

  test("hello, requests both ways, notifications, errors", async () => {
    instance = await startInstance({ token: TOKEN });
    const device = connect();
    const link = await instance.waitForLink();
    expect(link.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    device.hello();
    expect(await link.hello).toEqual({ protocol: 2, version: "0.1.0" });

    // instance → device request, answered
    const answered = link.request("initialize", { protocolVersion: 1 });
    const init = await device.next((m) => m.method === "initialize");
    expect(init.params).toEqual({ protocolVersion: 1 });
    device.send({ id: init.id, result: { protocolVersion: 1 } });
    expect(await answered).toEqual({ protocolVersion: 1 });

    // instance → device request, refused
    const refused = link.request("session/new", { cwd: "/nowhere" });
    const req = await device.next((m) => m.method === "session/new");
    device.send({ id: req.id, error: { code: -32602, message: "not inside the roots", data: { cwd: "/nowhere" } } });
    const error = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32602, message: "not inside the roots", data: { cwd: "/nowhere" } });

    // notifications both ways
    link.notify("session/cancel", { sessionId: "ses_1" });
    expect((await device.next((m) => m.method === "session/cancel")).id).toBeUndefined();
    device.send({ method: "session/update", params: { sessionId: "ses_1", update: { sessionUpdate: "agent_message_chunk" } } });
    const update = await link.waitForNotification("session/update");
    expect(update.params).toMatchObject({ sessionId: "ses_1" });
    expect(link.notifications.map((n) => n.method)).toEqual(["_lembas/hello", "session/update"]);

    // device → instance requests: handled, handler error, unhandled
    link.onRequest("session/request_permission", (params) => ({ outcome: { outcome: "selected", optionId: "once" }, echo: params }));
    link.onRequest("_lembas/question", () => {
      throw new RpcError(-32000, "dismissed by test", { why: 1 });
    });
    device.send({ id: "p1", method: "session/request_permission", params: { sessionId: "ses_1" } });
    device.send({ id: 7, method: "_lembas/question", params: {} });
    device.send({ id: 8, method: "_lembas/plan", params: {} });
    expect((await device.next((m) => m.id === "p1")).result).toEqual({ outcome: { outcome: "selected", optionId: "once" }, echo: { sessionId: "ses_1" } });
    expect((await device.next((m) => m.id === 7)).error).toEqual({ code: -32000, message: "dismissed by test", data: { why: 1 } });
    expect((await device.next((m) => m.id === 8)).error?.code).toBe(-32601);
    expect((await link.waitForRequest("_lembas/plan")).id).toBe(8);
    expect(link.requests.map((r) => r.method)).toEqual(["session/request_permission", "_lembas/question", "_lembas/plan"]);
    expect(link.invalid).toEqual([]);
  });

  test("raw and invalid frames", async () => {
    instance = await startInstance({ token: TOKEN });
    const device = connect();
    const link = await instance.waitForLink();
    link.sendRaw("{not json");
    device.sendRaw("{broken");
    device.sendRaw(JSON.stringify({ id: 1, method: "no jsonrpc field" }));
    device.send({ id: null, error: { code: -32700, message: "Parse error" } });
    const parseError = await link.waitForMessage((m) => m.id === null);
    expect(parseError.error?.code).toBe(-32700);
    expect(device.raw).toEqual(["{not json"]);
    expect(link.invalid).toEqual(["{broken", JSON.stringify({ id: 1, method: "no jsonrpc field" })]);
    await expect(link.waitForNotification("never", 30)).rejects.toThrow("timed out after 30 ms waiting for notification never (received: nothing)");
  });

  test("close codes both ways; pending requests fail; hello rejects when it never came", async () => {
    instance = await startInstance({ token: TOKEN });
    const first = connect();
    const link = await instance.waitForLink();
    const pending = link.request("initialize", {});
    expect(await link.close(4001, "bye")).toEqual({ code: 4001, reason: "bye" });
    expect(await first.closed).toEqual({ code: 4001, reason: "bye" });
    await expect(pending).rejects.toThrow("initialize: link closed (4001 bye)");
    await expect(link.hello).rejects.toThrow("before _lembas/hello");
    expect(link.open).toBe(false);
    expect(() => link.notify("x")).toThrow("closed");

    const second = connect();
    const other = await instance.waitForLink();
    await second.opened;
    second.ws.close(4400, "protocol");
    expect(await other.closed).toEqual({ code: 4400, reason: "protocol" });
  });

  test("an instance that speaks only protocol 1 closes a hello saying 2 with 4400", async () => {
    instance = await startInstance({ token: TOKEN, protocols: null });
    const device = connect();
    const link = await instance.waitForLink();
    device.hello(2);
    expect((await device.closed).code).toBe(4400);
    expect((await link.closed).code).toBe(4400);

    const ok = connect();
    const accepted = await instance.waitForLink();
    ok.hello(1);
    expect(await accepted.hello).toMatchObject({ protocol: 1 });
    expect(accepted.open).toBe(true);
  });

  test("stop drops every link (1001); restart listens on the same port", async () => {
    instance = await startInstance({ token: TOKEN });
    const port = instance.port;
    const device = connect();
    const link = await instance.waitForLink();
    await instance.stop();
    expect((await device.closed).code).toBe(1001);
    expect((await link.closed).code).toBe(1001);
    expect(await connect().opened).toBe(false);

    await instance.restart();
    expect(instance.port).toBe(port);
    const again = connect();
    expect(await again.opened).toBe(true);
    const second = await instance.waitForLink();
    expect(second).not.toBe(link);
    expect(instance.links).toEqual([link, second]);

    await instance.stop({ code: 4500, reason: "maintenance" });
    expect(await again.closed).toEqual({ code: 4500, reason: "maintenance" });
  });
});

describe("backpressure", () => {
  test("a flood to a device that reads slowly arrives whole and in order", async () => {
    instance = await startInstance({ token: TOKEN });
    const device = connect();
    const link = await instance.waitForLink();
    await device.opened;
    device.ws.pause();
    const filler = "x".repeat(64 * 1024);
    const total = 400; // 25 MB: past Bun's 16 MB backpressure limit
    for (let seq = 0; seq < total; seq++) link.notify("_lembas/terminal/output", { seq, data: filler });
    await Bun.sleep(50);
    device.ws.resume();
    await device.count(total);
    expect(device.received.map((m) => z.object({ seq: z.number() }).parse(m.params).seq)).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  test("link.pause() stops reading: the device backs up, and nothing is lost", async () => {
    instance = await startInstance({ token: TOKEN });
    const device = connect();
    const link = await instance.waitForLink();
    await device.opened;
    link.pause();
    const filler = "y".repeat(64 * 1024);
    const total = 200;
    for (let seq = 0; seq < total; seq++) device.send({ method: "_lembas/event", params: { seq, data: filler } });
    await Bun.sleep(100);
    expect(link.notifications.length).toBe(0);
    expect(device.ws.bufferedAmount).toBeGreaterThan(0); // TCP backpressure reached the device
    link.resume();
    await link.waitForNotification((n) => z.object({ seq: z.number() }).parse(n.params).seq === total - 1);
    expect(link.notifications.map((n) => z.object({ seq: z.number() }).parse(n.params).seq)).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});

test("close() fails waits for links", async () => {
  instance = await startInstance({ token: TOKEN });
  const wait = instance.waitForLink(2_000);
  await instance.close();
  await expect(wait).rejects.toThrow("the instance is closed");
  await expect(instance.restart()).rejects.toThrow("closed");
});
