/**
 * A kept models listing is the account's it was listed with: logged in again at the same instance
 * with another account's token, the next process lists that account's models afresh instead of
 * taking the old account's as fresh.
 */
import { afterEach, expect, test } from "bun:test";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { runLembas } from "../support/run.ts";

let d: Device | null = null;
afterEach(async () => {
  await d?.close();
  d = null;
});

const OTHER = "other-account-token-0123";

const modelsNamed = (device: Device) => device.model.requests.map((r) => (r.body as { model?: unknown } | null)?.model).filter((m) => typeof m === "string");

test("logged in again as another account: the next run uses that account's models, not the ones kept for the old token", async () => {
  // No connection of the device's own: the models are the instance's, through the login `inst`.
  d = await startDevice({ config: "remote:\n  roots: [/tmp]\n" });
  d.model.push(step({ text: "one" }));
  expect(await runLembas(d.box, ["run", "--yes", "hi"], { cwd: d.project })).toMatchObject({ code: 0 });
  expect(modelsNamed(d)).toEqual(["test-model"]);

  expect(await runLembas(d.box, ["logout", "inst"])).toMatchObject({ code: 0 });
  d.instance.setToken(OTHER);
  d.model.setModels([{ id: "b-only-model" }]);
  expect(await runLembas(d.box, ["login", d.instance.url, "--name", "inst", "--token-stdin"], { stdin: OTHER })).toMatchObject({ code: 0 });

  d.model.push(step({ text: "two" }));
  expect(await runLembas(d.box, ["run", "--yes", "hi"], { cwd: d.project })).toMatchObject({ code: 0 });
  expect(modelsNamed(d)).toEqual(["test-model", "b-only-model"]);
}, 60_000);

test("logged in again with the same account's new token, the models kept for the old one are listed afresh too", async () => {
  d = await startDevice({ config: "remote:\n  roots: [/tmp]\n" });
  d.model.push(step({ text: "one" }));
  expect(await runLembas(d.box, ["run", "--yes", "hi"], { cwd: d.project })).toMatchObject({ code: 0 });
  // Another process, logged in again without a logout: the login's row takes the new token.
  d.instance.setToken(OTHER);
  d.model.setModels([{ id: "b-only-model" }]);
  expect(await runLembas(d.box, ["login", d.instance.url, "--token-stdin"], { stdin: OTHER })).toMatchObject({ code: 0 });
  d.model.push(step({ text: "two" }));
  expect(await runLembas(d.box, ["run", "--yes", "hi"], { cwd: d.project })).toMatchObject({ code: 0 });
  expect(modelsNamed(d)).toEqual(["test-model", "b-only-model"]);
}, 60_000);
