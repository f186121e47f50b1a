/**
 * The binary's bytecode is laid out by the starts bytecode-order/record.ts recorded (the terminal,
 * `lembas serve`, `lembas run`): build.ts hands Bun every profile there, the most common start
 * first. Without them a start's bytecode lies scattered over the embedded program and an idle
 * service or terminal holds a few MB more of it (bench/START.md).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BYTECODE_WAYS, bytecodeOrder } from "../../build.ts";

const ROOT = join(import.meta.dir, "../..");

test("every usual start has its recorded profile, and the build uses them in that order", () => {
  expect(bytecodeOrder()).toEqual(BYTECODE_WAYS.map((way) => join(ROOT, "bytecode-order", `${way}.txt`)));
});

test("each profile is one Bun reads: its version line, then the modules and functions a start ran", () => {
  for (const file of bytecodeOrder()) {
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect([file, lines[0]]).toEqual([file, "v2"]);
    expect(lines.slice(1).filter((line) => !/^[A-Z] [0-9a-f]{16}$/.test(line))).toEqual([]);
    // A start runs about a hundred modules of the program and thousands of functions: a profile of far fewer was cut short.
    expect(lines.filter((line) => line.startsWith("M ")).length).toBeGreaterThan(50);
    expect(lines.length).toBeGreaterThan(5000);
  }
});
