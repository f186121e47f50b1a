import type { EngineEvent, EventOf } from "../bus/index.ts";
import type { Interaction } from "../engine/interaction.ts";
import { denialText } from "../transcript/denials.ts";
import { type Paints, paintsFor } from "./paint.ts";
import { Spinner } from "./spinner.ts";
import { helperCallLines, shown, toolResultLines } from "./tool-lines.ts";

/** A running command's output kept for its tail: the newest, never the whole flood. */
const KEEP_CHARS = 16_384;

type Out = { write(text: string): unknown; isTTY?: boolean };

/** `lembas run`'s output, fed the session's events in order. */
export type Printer = {
  event(event: EngineEvent): void;
  /** The same interaction, asking only once the screen is ready for it (the spinner gone, the streamed text's line ended). */
  around(interaction: Interaction): Interaction;
  /** The run is over: the spinner goes and the answer ends with a newline. */
  end(): void;
};

/**
 * Text: the answer alone on stdout (so `> out.txt` holds it), the rest on stderr: a header, each
 * tool as a line with its diff or its output's tail, a spinner while the model is awaited. JSON:
 * every event as one line of NDJSON on stdout.
 */
export function makePrinter(format: "text" | "json", streams: { stdout: Out; stderr: Out } = process, env: NodeJS.ProcessEnv = process.env): Printer {
  if (format === "json") {
    return {
      event: (event) => void streams.stdout.write(`${JSON.stringify(event)}\n`),
      around: (interaction) => interaction,
      end: () => {},
    };
  }
  return new TextPrinter(streams.stdout, streams.stderr, paintsFor(streams.stderr, env), env.HOME);
}

class TextPrinter implements Printer {
  /** The last two characters written to stdout ("" before any). */
  private outTail = "";
  /** stdout and stderr are one screen: a line stdout left open must end before stderr writes. */
  private readonly shared: boolean;
  private readonly spinner: Spinner | null;
  private headerShown = false;
  /** What the screen shows last, in a shared screen: the answer's text or one of our blocks. */
  private last: "text" | "block" | null = null;
  private textInStep = false;
  private readonly outputs = new Map<string, string>();
  /** The titles of the calls running, and the call whose title is the last block printed. */
  private readonly titles = new Map<string, string>();
  private lastTitled: string | null = null;
  /** The session's root, which a diff's path is shown from. */
  private root = "";

  constructor(
    private readonly stdout: Out,
    private readonly stderr: Out,
    private readonly paint: Paints,
    private readonly home: string | undefined,
  ) {
    this.shared = Boolean(stdout.isTTY && stderr.isTTY);
    this.spinner = stderr.isTTY ? new Spinner(stderr, paint.dim) : null;
  }

  event(event: EngineEvent): void {
    switch (event.type) {
      case "session":
        return this.header(event);
      case "step":
        this.textInStep = false;
        return this.wait("waiting for the model");
      case "reasoning":
        return this.wait("thinking");
      case "tool_call_delta":
        return this.wait("writing a tool call");
      case "text":
        return this.text(event.delta);
      case "progress":
        this.outputs.set(event.callId, ((this.outputs.get(event.callId) ?? "") + event.output).slice(-KEEP_CHARS));
        return;
      case "tool_start":
        this.block([this.titleLine(event.title)]);
        this.titles.set(event.callId, event.title);
        this.lastTitled = event.callId;
        return;
      case "tool_end":
        return this.block(this.result(event));
      case "sub_tool":
        return this.block(helperCallLines(event, this.paint, this.root));
      case "tool_denied": {
        const why = shown(denialText(event));
        return this.block([this.titleLine(event.title), this.paint.warn(`  ⎿ ${why}`)]);
      }
      case "notice": {
        // A notice said while a call runs (its language server did not start) leaves its title standing: the result follows without it again.
        const titled = this.lastTitled;
        this.block([(event.level === "warn" ? this.paint.warn : this.paint.dim)(`lembas: ${shown(event.message)}`)]);
        this.lastTitled = titled;
        return;
      }
      case "compacted":
        return this.block([this.paint.dim("lembas: the history was compacted")]);
      case "error":
      case "done":
        this.spinner?.stop();
        return;
      default:
        return;
    }
  }

  around(interaction: Interaction): Interaction {
    return {
      permission: (request, signal) => {
        this.freshLine();
        return interaction.permission(request, signal);
      },
      question: (request, signal) => {
        this.freshLine();
        return interaction.question(request, signal);
      },
      plan: (request, signal) => {
        this.freshLine();
        return interaction.plan(request, signal);
      },
    };
  }

  end(): void {
    this.spinner?.stop();
    if (this.outTail !== "" && !this.outTail.endsWith("\n")) this.out("\n");
  }

  private header(info: EventOf<"session">): void {
    if (this.headerShown) return;
    this.headerShown = true;
    this.root = info.root;
    const model = info.model ? `${info.model}${info.effort === "off" ? "" : ` (effort ${info.effort})`}` : "no model";
    this.block([this.paint.dim(`lembas · ${shown(model)} · ${info.mode} mode · ${shown(homeShort(info.cwd, this.home))} · session ${info.id}`)]);
  }

  private text(given: string): void {
    // At a terminal the model's text is shown as text; to a file or a pipe it goes as written.
    const delta = this.stdout.isTTY ? shown(given) : given;
    if (delta === "") return;
    this.spinner?.stop();
    if (!this.textInStep) {
      this.textInStep = true;
      // The text of each step is a paragraph of its own; on a shared screen, one blank line after our blocks.
      if (this.outTail !== "") this.out(this.outTail.endsWith("\n\n") ? "" : this.outTail.endsWith("\n") ? "\n" : "\n\n");
      else if (this.shared && this.last === "block") this.stderr.write("\n");
    }
    this.out(delta);
    this.last = "text";
  }

  /** The model is awaited: the spinner, on a line of its own, at a terminal only. */
  private wait(label: string): void {
    if (!this.spinner) return;
    if (!this.spinner.spinning) this.freshLine();
    this.spinner.start(label);
  }

  /** Lines on stderr, starting on a line of their own. */
  private block(lines: string[]): void {
    if (lines.length === 0) return;
    this.lastTitled = null;
    const afterText = this.shared && this.last === "text";
    this.freshLine();
    if (afterText) this.stderr.write("\n");
    this.stderr.write(`${lines.join("\n")}\n`);
    this.last = "block";
  }

  /** The spinner erased and, on a shared screen, the streamed text's line ended: what comes next starts at the left, erasing nothing. */
  private freshLine(): void {
    this.spinner?.stop();
    if (this.shared && this.last === "text" && !this.outTail.endsWith("\n")) this.out("\n");
  }

  private out(text: string): void {
    if (text === "") return;
    this.stdout.write(text);
    this.outTail = (this.outTail + text).slice(-2);
  }

  /** A call's result; under its title again when something else was printed since (calls that ran at once). */
  private result(event: EventOf<"tool_end">): string[] {
    const output = this.outputs.get(event.callId);
    this.outputs.delete(event.callId);
    const title = this.titles.get(event.callId);
    this.titles.delete(event.callId);
    const lines = toolResultLines(event, output, this.paint, this.root);
    const again = lines.length > 0 && title !== undefined && this.lastTitled !== event.callId ? [this.titleLine(title)] : [];
    return [...again, ...lines];
  }

  private titleLine(title: string): string {
    return this.paint.bold(`› ${shown(title)}`);
  }
}

/** `~/code/app` for a directory under the home directory. */
function homeShort(dir: string, home: string | undefined): string {
  if (!home || home === "/") return dir;
  return dir === home ? "~" : dir.startsWith(`${home}/`) ? `~${dir.slice(home.length)}` : dir;
}
