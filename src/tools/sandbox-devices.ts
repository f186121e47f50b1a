/**
 * The host's devices root's sandbox gets in its fresh /dev. bwrap pays for each one it passes: a
 * bind mount, and a read of the whole mount table to remount it (about 0.25 ms a device here, more
 * on a busy machine), so only devices a command can use are passed, and the list is kept between
 * commands for as long as the dirs it was read from have not changed.
 */
import { lstatSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { dirname, join } from "node:path";

const DEVICE_PREFIXES = ["tty", "video", "nvidia"];
const DEVICE_PATHS = ["bus/usb", "snd", "fuse", "net/tun", "dri", "kvm"];
/** Where the serial core says which UART each serial port has. */
const TTY_CLASS = "/sys/class/tty";

/**
 * The devices root's fresh /dev gets from DEV, those that exist: serial ports (USB ones too), USB,
 * sound, cameras, FUSE, TUN, GPUs (CUDA, OpenCL, Vulkan) and KVM work in the sandbox as outside.
 * Only character devices, or dirs of nothing else: never a disk, nor /dev/mem. Left out: the
 * machine's virtual consoles (tty0-tty63, its screens: a command has no business there), a serial
 * port with no UART behind it (TTYS says type 0: opening it fails anyway), and /dev/tty, which
 * bwrap's /dev has already. SEEN, when given, gets each dir read on the way.
 */
export function passedDevices(dev = "/dev", ttys = TTY_CLASS, seen?: Set<string>): string[] {
  const named = safeList(dev, seen).filter((name) => DEVICE_PREFIXES.some((prefix) => name.startsWith(prefix)) && usable(name, ttys));
  for (const path of DEVICE_PATHS) seen?.add(dirname(join(dev, path)));
  return [...named.sort(), ...DEVICE_PATHS].map((name) => join(dev, name)).filter((path) => onlyCharacterDevices(path, false, seen));
}

function usable(name: string, ttys: string): boolean {
  if (name === "tty" || /^tty\d+$/.test(name)) return false;
  return !name.startsWith("ttyS") || uartType(join(ttys, name)) !== "0";
}

function uartType(dir: string): string | null {
  try {
    return readFileSync(join(dir, "type"), "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * A symlink inside a passed dir is let through: in the sandbox it points into the fresh /dev,
 * where no disk is. One passed itself is not: bwrap would pass what it points to.
 */
function onlyCharacterDevices(path: string, inside: boolean, seen?: Set<string>): boolean {
  const stat = safeLstat(path);
  if (!stat) return false;
  if (stat.isCharacterDevice() || (inside && stat.isSymbolicLink())) return true;
  if (!stat.isDirectory()) return false;
  return safeList(path, seen).every((name) => onlyCharacterDevices(join(path, name), true, seen));
}

/** A dir as it was when the list was read: any entry added, removed or replaced changes its mtime. */
type Stamp = { dir: string; ino: number; mtimeMs: number } | { dir: string; missing: true };

type Kept = { devices: readonly string[]; stamps: readonly Stamp[] };

/**
 * A dir changed within this long before it was read may change again within the same tick of the
 * file system's clock without its mtime moving: such a list is read again next time.
 */
const RACY_MS = 2_000;

const kept = new Map<string, Kept>();

/**
 * `passedDevices`, read again only when a dir it was read from has changed (a device plugged in
 * or out, a node replaced): a few stats a command instead of a walk of /dev. The serial ports'
 * UART types are read with the list; a port set up with setserial later is passed once /dev
 * changes or lembas starts again.
 */
export function hostDevices(dev = "/dev", ttys = TTY_CLASS): readonly string[] {
  const key = `${dev}\0${ttys}`;
  const known = kept.get(key);
  if (known && known.stamps.every(unchanged)) return known.devices;
  const readAt = Date.now();
  const seen = new Set<string>();
  const devices = passedDevices(dev, ttys, seen);
  const stamps = [...seen].map(stamp);
  if (stamps.every((s) => "missing" in s || s.mtimeMs < readAt - RACY_MS)) kept.set(key, { devices, stamps });
  else kept.delete(key);
  return devices;
}

function stamp(dir: string): Stamp {
  const stat = safeStat(dir);
  return stat ? { dir, ino: stat.ino, mtimeMs: stat.mtimeMs } : { dir, missing: true };
}

function unchanged(was: Stamp): boolean {
  const now = stamp(was.dir);
  if ("missing" in was || "missing" in now) return "missing" in was && "missing" in now;
  return now.ino === was.ino && now.mtimeMs === was.mtimeMs;
}

function safeStat(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function safeLstat(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function safeList(dir: string, seen?: Set<string>): string[] {
  seen?.add(dir);
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
