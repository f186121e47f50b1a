import { appendFileSync, chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectSandbox, runLembas, type RunResult, type Sandbox } from "../support/run.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

export type LibraryBox = Sandbox & { project: string; model: ScriptedModel; lembas(args: string[], cwd?: string): Promise<RunResult>; close(): Promise<void> };

/** A sandbox whose config has a connection `test` to a scripted model, and `embedding: test/embed-a`. */
export async function libraryBox(): Promise<LibraryBox> {
  const model = await startModel();
  const box = projectSandbox(model.url);
  appendFileSync(join(box.configDir, "config.yaml"), "embedding: test/embed-a\n");
  return {
    ...box,
    model,
    lembas: (args, cwd) => runLembas(box, args, { cwd: cwd ?? box.project }),
    async close() {
      await model.close();
      box.cleanup();
    },
  };
}

/** Sets config.yaml's embedding: (the rest as libraryBox wrote it). */
export function setEmbedding(box: LibraryBox, ref: string): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${box.model.url}\nembedding: ${ref}\n`);
}

/**
 * A file this user cannot read: mode 000 for anyone but root; for root (who reads any mode), a
 * sysfs attribute that is write-only for everyone. Null when there is none.
 */
export function unreadableFile(dir: string): string | null {
  if (process.getuid?.() !== 0) {
    const file = join(dir, "secret.txt");
    writeFileSync(file, "private words\n");
    chmodSync(file, 0o000);
    return file;
  }
  return ["/sys/bus/platform/uevent", "/sys/bus/cpu/uevent"].find((f) => existsSync(f)) ?? null;
}
