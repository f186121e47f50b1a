#!/usr/bin/env bun
// The entry point stays tiny: `--version` answers before anything else is loaded, and every
// subcommand is imported only when it runs, so that start-up stays close to a bare Bun program.
import { startedUpAtTheLatest } from "./jit-policy.ts";
import { versionLine } from "./version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  console.log(versionLine());
} else if (argv.length === 2 && argv[0] === "serve" && argv[1] === "--stdio") {
  // What editors start, and then wait on: it goes straight to serving, without the argument parser.
  startedUpAtTheLatest();
  const { runStdio } = await import("./cli/stdio.ts");
  await runStdio();
} else {
  const { main } = await import("./cli/main.ts");
  await main(argv);
}
