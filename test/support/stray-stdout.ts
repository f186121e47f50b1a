/**
 * Preloaded into `lembas serve --stdio` by test/acp/start-up-load.test.ts: once the process writes
 * its first message (its stdout guard is in place by then), code of its own prints the way a
 * library might, with process.stdout.write and console.log. Neither may reach stdout.
 */
import { tapStdoutWrites } from "./stdout-tap.ts";

let strayed = false;
tapStdoutWrites(() => {
  if (strayed) return;
  strayed = true;
  process.stdout.write("stray process.stdout.write\n");
  console.log("stray console.log");
});
