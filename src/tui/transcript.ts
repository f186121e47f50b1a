import { isAbsolute, relative } from "node:path";
import type { EngineEvent } from "../bus/index.ts";
import type { HistoryTurn } from "../transcript/history-turns.ts";
import { AnswerBlock } from "./blocks/answer.ts";
import { LineBlock } from "./blocks/lines.ts";
import { ReasoningBlock } from "./blocks/reasoning.ts";
import { RetryBlock } from "./blocks/retry-line.ts";
import { TodoBlock } from "./blocks/todos.ts";
import { storedDenial } from "../transcript/denials.ts";
import type { TodoItem } from "../tools/tool.ts";
import { ToolCallBlock } from "./blocks/tool-call.ts";
import { UserMessage } from "./blocks/user-message.ts";
import { highlight } from "./highlight.ts";
import { type Component, Container, type MarkdownTheme } from "./kit.ts";
import { markdownTheme, type Theme } from "./theme.ts";

/**
 * How a resumed session's stored tool calls are shown: a call's title, and the list a todo call
 * wrote (undefined when its arguments no longer read as one). tui/stored-calls.ts reads them with
 * every tool's schema, which the history of a session without tool calls does not need to load.
 */
export type StoredCalls = {
  title(name: string, args: unknown, where: { root: string; cwd: string }): string;
  todos(args: unknown): readonly TodoItem[] | undefined;
};

/** A block of the person's own (a `!` run) in a resumed history: drawn after that many user messages. */
export type OwnBlock = { afterUsers: number; block: Component };

/** Events that come only once a model request was answered: the retries before it are over. */
const ANSWERED: ReadonlySet<EngineEvent["type"]> = new Set(["step", "reasoning", "text", "tool_call_delta", "tool_start", "progress", "tool_end", "sub_tool", "usage", "todos"]);

/**
 * The conversation as blocks, from the engine's events (and a resumed session's history). Blocks
 * are only ever added at the end or changed while they are the live turn's, so that what scrolled
 * into the terminal's scrollback is never drawn again.
 */
export class Transcript extends Container {
  private answer: AnswerBlock | null = null;
  private reasoning: ReasoningBlock | null = null;
  private todos: TodoBlock | null = null;
  private lastLine: { block: LineBlock; said: string } | null = null;
  /** The retries of the model request under way, one line until it answers or the turn gives up. */
  private retrying: RetryBlock | null = null;
  /** Set while the person changes the mode here: the status bar says it, the transcript adds no line. */
  private personsMode = false;
  /** The plan_submit calls under way: an approval's mode change is said by the call's result, not by a line too. */
  private readonly planCalls = new Set<string>();
  /** Large pastes of the prompt being sent: its block shows them folded. */
  private pastes: readonly string[] = [];
  private readonly tools = new Map<string, ToolCallBlock>();
  private readonly md: MarkdownTheme;
  /** The directory paths are shown relative to (the session's). */
  cwd = "";
  root = "";

  /** Where a turn's prompt came from when not this terminal ("from the web"), or null. */
  sentFrom: (turnId: string) => string | null = () => null;

  constructor(private readonly theme: Theme) {
    super();
    this.md = this.markdown();
  }

  get blocks(): readonly Component[] {
    return this.children;
  }

  /** The last answer's text, for /copy. */
  lastAnswer(): string {
    for (let i = this.children.length - 1; i >= 0; i--) {
      const block = this.children[i];
      if (block instanceof AnswerBlock && block.text.trim()) return block.text;
    }
    return "";
  }

  line(text: string, level: "info" | "warn" | "error" = "info"): void {
    // The same notice twice in a row says nothing new (a /compact's event, then its action's result).
    if (this.lastLine && this.children.at(-1) === this.lastLine.block && this.lastLine.said === `${level}:${text}`) return;
    const paint = level === "error" ? this.theme.error : level === "warn" ? this.theme.warn : this.theme.dim;
    const block = new LineBlock(text, paint, level === "error" ? "✗ " : level === "warn" ? "! " : "· ");
    this.lastLine = { block, said: `${level}:${text}` };
    this.addChild(block);
  }

  /**
   * The turns a resumed session already had, drawn finished. `calls` reads its tool calls; null
   * only for a history that has none. `own`: the person's `!` runs, each where it came.
   */
  history(turns: readonly HistoryTurn[], calls: StoredCalls | null, own: readonly OwnBlock[] = []): void {
    // As live: the list a turn's todo calls wrote is one block, where its first call came.
    let todos: TodoBlock | null = null;
    let users = 0;
    let next = 0;
    const ownUpTo = (count: number) => {
      for (let mine = own[next]; mine && mine.afterUsers <= count; mine = own[++next]) this.addChild(mine.block);
    };
    for (const turn of turns) {
      if (turn.role === "user") {
        ownUpTo(users++);
        this.addChild(new UserMessage(turn.text, this.theme, turn.attachments ?? []));
        todos = null;
        continue;
      }
      // One model call: its reasoning, then what it said, then the tools it called, as they came.
      if (turn.reasoning.trim()) this.addChild(ReasoningBlock.finished(turn.reasoning, this.theme));
      if (turn.text.trim()) this.addChild(new AnswerBlock(this.md, turn.text));
      if (turn.tools.length === 0) continue;
      if (!calls) throw new Error("a history with tool calls is drawn with their reader (tui/stored-calls.ts)");
      for (const tool of turn.tools) {
        if (tool.name === "todo") {
          const list = tool.isError ? undefined : calls.todos(tool.args);
          if (!list) continue;
          if (!todos) this.addChild((todos = new TodoBlock(this.theme)));
          todos.set(list);
          continue;
        }
        const block = new ToolCallBlock(tool.id, tool.name, calls.title(tool.name, tool.args, { root: this.root || this.cwd, cwd: this.cwd }), this.theme, this.shown);
        const denial = storedDenial(tool);
        if (denial !== null) block.deny(denial);
        else block.end({ output: tool.output ?? "", isError: tool.isError ?? false });
        this.addChild(block);
      }
    }
    ownUpTo(Number.POSITIVE_INFINITY);
    this.settle();
  }

  /** A mode change the person makes here (Shift+Tab, /mode): the status bar shows it, no line is added. */
  byPerson<T>(change: () => T): T {
    this.personsMode = true;
    try {
      return change();
    } finally {
      this.personsMode = false;
    }
  }

  /** The large pastes of the prompt about to be sent, shown folded in its block (the model gets them whole). */
  foldPastes(pastes: readonly string[]): void {
    this.pastes = pastes;
  }

  /** Draws one engine event; returns whether anything changed on screen. */
  apply(event: EngineEvent): boolean {
    if (this.retrying && this.retryOutcome(event)) return true;
    switch (event.type) {
      case "prompt": {
        this.settle();
        const folded = this.pastes.filter((paste) => event.text.includes(paste));
        this.pastes = [];
        this.addChild(new UserMessage(event.text, this.theme, event.attachments ?? [], this.sentFrom(event.turnId), folded));
        return true;
      }
      case "step":
        this.endStep();
        return false;
      case "reasoning":
        if (!this.reasoning || this.reasoning.isFolded) {
          this.reasoning = new ReasoningBlock(this.theme);
          this.addChild(this.reasoning);
        }
        this.reasoning.append(event.delta);
        return true;
      case "text":
        this.reasoning?.fold();
        if (!this.answer) {
          this.answer = new AnswerBlock(this.md);
          this.addChild(this.answer);
        }
        this.answer.append(event.delta);
        return true;
      case "tool_start":
        if (event.name === "plan_submit") this.planCalls.add(event.callId);
        return this.toolStart(event);
      case "progress":
        this.tools.get(event.callId)?.progress(event.output);
        return this.tools.has(event.callId);
      case "tool_end":
        this.planCalls.delete(event.callId);
        this.tools.get(event.callId)?.end(event);
        return this.tools.has(event.callId);
      case "sub_tool":
        this.tools.get(event.parentCallId)?.helper(event);
        return this.tools.has(event.parentCallId);
      case "tool_denied": {
        const block = this.tools.get(event.callId) ?? this.newTool(event.callId, event.name, event.title);
        block.deny(event);
        return true;
      }
      case "todos":
        // Redrawn in place only while it is the last block: one that scrolled up is left as it was.
        if (!this.todos || this.children.at(-1) !== this.todos) {
          this.todos = new TodoBlock(this.theme);
          this.addChild(this.todos);
        }
        this.todos.set(event.todos);
        return true;
      case "steered":
        for (const text of event.texts) this.addChild(new UserMessage(`(while it worked) ${text}`, this.theme));
        this.endStep();
        return true;
      case "notice":
        if (event.retry) return this.retry(event.message, event.retry);
        this.line(event.message, event.level === "warn" ? "warn" : "info");
        return true;
      case "error":
        this.line(event.message, "error");
        return true;
      case "compacted":
        this.line(event.auto ? "the history was compacted to fit the model's window" : "the conversation was compacted");
        return true;
      case "mode":
        if (this.personsMode || this.planCalls.size > 0) return false;
        this.line(`mode: ${event.mode}`);
        return true;
      case "model":
        this.line(`model: ${event.ref ?? "the default"} · effort ${event.effort}`);
        return true;
      case "setting":
        this.line(`setting ${event.key} = ${JSON.stringify(event.value)}`);
        return true;
      case "done":
        this.planCalls.clear();
        this.endStep();
        if (event.stopReason === "cancelled") this.line("interrupted", "warn");
        else if (event.stopReason === "max_tokens") this.line("the answer was cut at the model's token limit", "warn");
        else if (event.stopReason === "max_turn_requests") this.line("the turn stopped before the model finished: its step limit, or a failing call it kept repeating", "warn");
        else if (event.stopReason === "refusal") this.line("the model refused", "warn");
        this.settle();
        return true;
      default:
        return false;
    }
  }

  private retry(message: string, retry: { attempt: number; reason: string }): boolean {
    if (!this.retrying) {
      this.retrying = new RetryBlock(this.theme);
      this.addChild(this.retrying);
    }
    this.retrying.retry(message, retry.attempt, retry.reason);
    return true;
  }

  /**
   * What an event says of the retries under way: the server answered, the turn failed or was
   * stopped. Whether the retry line said all the event says (the turn's error ends it).
   */
  private retryOutcome(event: EngineEvent): boolean {
    const block = this.retrying;
    if (!block) return false;
    if (event.type === "error") {
      block.failed(event.message);
      this.retrying = null;
      return true;
    }
    if (event.type === "done") block.end(event.stopReason === "cancelled" ? "stopped" : event.stopReason === "error" ? "failed" : "answered");
    else if (ANSWERED.has(event.type)) block.end("answered");
    if (!block.live) this.retrying = null;
    return false;
  }

  private toolStart(event: Extract<EngineEvent, { type: "tool_start" }>): boolean {
    this.reasoning?.fold();
    // The todo list is its own block: a line for the call that wrote it would only repeat it.
    if (event.name === "todo") return true;
    this.answer = null;
    const known = this.tools.get(event.callId);
    if (known) known.rename(event.title);
    else this.newTool(event.callId, event.name, event.title);
    return true;
  }

  private newTool(callId: string, name: string, title: string): ToolCallBlock {
    this.reasoning?.fold();
    this.answer = null;
    const block = new ToolCallBlock(callId, name, title, this.theme, this.shown);
    this.tools.set(callId, block);
    this.addChild(block);
    return block;
  }

  private endStep(): void {
    this.reasoning?.fold();
    this.answer = null;
    this.reasoning = null;
  }

  /** The turn is over: its blocks are final. */
  private settle(): void {
    this.retrying?.end("stopped");
    this.retrying = null;
    this.endStep();
    this.todos = null;
    this.tools.clear();
  }

  private readonly shown = (path: string): string => {
    const rel = this.cwd ? relative(this.cwd, path) : path;
    return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
  };

  private markdown(): MarkdownTheme {
    const theme = this.theme;
    return markdownTheme(theme, (code, lang) => highlight(code, lang, theme));
  }
}
