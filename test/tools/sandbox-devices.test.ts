import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { hostDevices, passedDevices } from "../../src/tools/sandbox-devices.ts";
import { bwrapSandbox } from "../support/tools.ts";
import { cleanupTempDirs, makeContext, run, tempDir } from "./context.ts";

afterAll(cleanupTempDirs);

const asRoot = process.getuid?.() === 0;
const bwrap = bwrapSandbox("the sandbox's device tests");

/** Makes a device node at DEV/PATH: a character device (/dev/null's numbers) or a block device (a loop's). */
function node(dev: string, path: string, type: "b" | "c"): void {
  if (Bun.spawnSync(["mknod", join(dev, path), type, type === "b" ? "7" : "1", type === "b" ? "0" : "3"]).exitCode !== 0) throw new Error(`mknod ${path} failed`);
}

/** A serial port's UART type as the serial core shows it under /sys/class/tty. */
function uart(ttys: string, name: string, type: string): void {
  mkdirSync(join(ttys, name));
  writeFileSync(join(ttys, name, "type"), `${type}\n`);
}

/** Sets the dirs' mtime an hour back, as a /dev that has not changed for a while. */
function settled(...dirs: string[]): void {
  const then = Math.floor(Date.now() / 1000) - 3600;
  for (const dir of dirs) utimesSync(dir, then, then);
}

describe.skipIf(!asRoot)("the devices root's sandbox gets (each one a mount bwrap pays for)", () => {
  test("the virtual consoles, /dev/tty (bwrap's /dev has its own) and serial ports with no UART are left out; real and USB serial ports are passed", () => {
    const dev = tempDir();
    const ttys = tempDir();
    for (const name of ["tty", "tty0", "tty1", "tty63", "ttyS0", "ttyS1", "ttyS31", "ttyUSB0", "ttyACM0", "console"]) node(dev, name, "c");
    uart(ttys, "ttyS0", "4");
    uart(ttys, "ttyS1", "0");
    uart(ttys, "ttyS31", "0");
    expect(passedDevices(dev, ttys)).toEqual(["ttyACM0", "ttyS0", "ttyUSB0"].map((name) => join(dev, name)));
  });

  test("a device plugged in after the list was read is passed to the next command", () => {
    const dev = tempDir();
    const ttys = tempDir();
    node(dev, "fuse", "c");
    settled(dev);
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "fuse")]);
    node(dev, "ttyUSB0", "c");
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "ttyUSB0"), join(dev, "fuse")]);
  });

  test("a disk that appears in a passed dir after the list was read takes the dir out", () => {
    const dev = tempDir();
    const ttys = tempDir();
    mkdirSync(join(dev, "dri"));
    node(dev, "dri/card0", "c");
    settled(dev, join(dev, "dri"));
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "dri")]);
    node(dev, "dri/disk", "b");
    expect(hostDevices(dev, ttys)).toEqual([]);
  });

  test("the list is kept while the dirs it was read from keep their mtime: a few stats a command, not a walk of /dev", () => {
    const dev = tempDir();
    const ttys = tempDir();
    node(dev, "fuse", "c");
    settled(dev);
    const { mtime } = statSync(dev);
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "fuse")]);
    node(dev, "kvm", "c");
    utimesSync(dev, mtime, mtime);
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "fuse")]);
  });

  test("a list read from a dir that had just changed is read again, since its clock may not have moved for a second change", () => {
    const dev = tempDir();
    const ttys = tempDir();
    node(dev, "fuse", "c");
    const justNow = Math.floor(Date.now() / 1000);
    utimesSync(dev, justNow, justNow);
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "fuse")]);
    node(dev, "kvm", "c");
    utimesSync(dev, justNow, justNow);
    expect(hostDevices(dev, ttys)).toEqual([join(dev, "fuse"), join(dev, "kvm")]);
  });

  test.skipIf(!bwrap || !existsSync("/dev/tty1"))("a command in the sandbox sees no virtual console", async () => {
    const { ctx } = makeContext({ root: tempDir(), hidden: [tempDir()] });
    const result = await run(bashTool, { command: "ls /dev | grep -c '^tty[0-9]' ; true" }, ctx);
    expect(result.output).toBe("0");
  });
});
