import { join } from "node:path";
import type { Mode } from "../config/schema.ts";
import { cappedMode } from "../engine/mode-cap.ts";
import type { PromptInput, Session, TurnAnswer, TurnTicket } from "../engine/session.ts";
import { type AttachRules, expandMentions, heldMentions } from "../project/attach.ts";
import { type CommandSet, commandsKey, loadCommands, parseCommand } from "../project/commands.ts";
import type { ProtectedPaths } from "../project/protected.ts";
import { reviewInput } from "../project/review.ts";
import { type Block, checkBlocks, readBlocks } from "./blocks.ts";
import { type ProjectResources, projectFiles } from "./file-resources.ts";
import { shownBlocks } from "./shown-blocks.ts";
import { type Joining, type Typed, typedText } from "./prompt-text.ts";

/**
 * Where a front end's prompts come from: what every front end (ACP, the link, the terminal UI)
 * tells the one way into a session, so that commands, @mentions and uploads are read alike.
 */
export type PromptPlace = {
  attachmentsDir: string;
  configDir: string;
  /** The roots a prompt's @paths must also be inside (a web prompt); null: the project alone. */
  roots: readonly string[] | null;
  protectedPaths: ProtectedPaths;
  /** The highest mode a command may put the session in. */
  maxMode: Mode;
  /** Records a picked or attached file, for the @ picker's frecency. */
  recordUse?(root: string, path: string): void;
  /** How the blocks' text is joined (prompt-text.ts); absent: in paragraphs, as the link's spec says. */
  joining?: Joining;
};

/** The place of a front end on the device itself (the terminal, `lembas run`): the project alone, up to auto. */
export function devicePlace(paths: { attachmentsDir: string; configDir: string }, protectedPaths: ProtectedPaths, recordUse?: (root: string, path: string) => void): PromptPlace {
  return { attachmentsDir: paths.attachmentsDir, configDir: paths.configDir, roots: null, protectedPaths, maxMode: "auto", ...(recordUse ? { recordUse } : {}) };
}

/** What entering a prompt came to: a known turn's answer, or a new turn's, with the command set before and after it. */
export type Entered = { known: true; answer: TurnAnswer } | { known: false; answer: TurnAnswer; before: CommandSet; after: CommandSet };

/**
 * Enters one prompt into a session. The turn id is looked up first: a known one gets its answer
 * and nothing else happens (no attachment written, no mode changed, no git run). A new one has its
 * blocks read, its command acted on or expanded, its @mentions attached, and is run. A block that
 * cannot be read throws its BlockError, and the turn is forgotten. `context` goes to the model
 * before the prompt and is not shown as the person's (the terminal's `!` commands' output).
 */
export async function enterPrompt(session: Session, blocks: Block[], turnId: string, place: PromptPlace, context?: string): Promise<Entered> {
  const admitted = await session.admit(turnId);
  if ("known" in admitted) return { known: true, answer: await admitted.known };
  const { ticket } = admitted;
  let before: CommandSet;
  let answer: TurnAnswer;
  try {
    before = loadCommands({ root: session.root, configDir: place.configDir, protectedPaths: place.protectedPaths });
    // A command file skipped is said before the turn it would have been (once a session, in every front end).
    for (const notice of before.notices) session.noticeOnce(notice);
    answer = await startPrompt(session, ticket, blocks, before, place, context);
  } catch (error) {
    // Not prepared (a block refused): the turn is forgotten. Once started, abandon does nothing.
    ticket.abandon(error);
    throw error;
  }
  const after = loadCommands({ root: session.root, configDir: place.configDir, protectedPaths: place.protectedPaths });
  for (const notice of after.notices) session.noticeOnce(notice);
  return { known: false, answer, before, after };
}

/** Whether the command set changed over a turn (a skill made, a command file written). */
export function commandsChanged(entered: Entered): boolean {
  return !entered.known && commandsKey(entered.after) !== commandsKey(entered.before);
}

/** Prepares an admitted turn (what it writes and changes happens here, once) and runs it. */
async function startPrompt(session: Session, ticket: TurnTicket, blocks: Block[], commands: CommandSet, place: PromptPlace, context?: string): Promise<TurnAnswer> {
  checkBlocks(blocks);
  const rules: AttachRules = { cwd: session.cwd, root: session.root, roots: place.roots ? [...place.roots] : null, protectedPaths: place.protectedPaths };
  const joining = place.joining ?? "paragraphs";
  const files = projectFiles(blocks, rules, joining === "in-place");
  const typed = typedText(blocks, joining, files.inPlace);
  const command = parseCommand(typed.shown, commands);
  if (command?.type === "action") return ticket.action(() => runAction(session, command.name, place), command.name);
  let review: string | null = null;
  if (command?.type === "review") {
    const input = await reviewInput(session.cwd, command.args);
    if (!input.ok) return ticket.action(() => ({ message: input.message }), "review");
    review = input.text;
  }
  const input = await preparedInput(session, { blocks, typed, files, rules }, command, review, place, ticket.signal, context);
  // The command's mode is taken when the turn starts, not now: a turn that never runs changes nothing.
  const mode = command?.type === "prompt" && command.mode ? { mode: cappedMode(command.mode, place.maxMode), ...(command.modeOnlyLowers ? { modeOnlyLowers: true } : {}) } : {};
  // A prompt from the web runs at most in remote.max_mode, even in a session that runs above it (a terminal's).
  const cap = place.roots !== null ? { maxMode: place.maxMode } : {};
  return ticket.prompt({ ...input, ...mode, ...cap });
}

/** A prompt's blocks as read so far: their typed text, the project files they name, the rules @paths are attached by. */
type ReadPrompt = { blocks: Block[]; typed: Typed; files: ProjectResources; rules: AttachRules };

/** The blocks' uploads written, the command expanded, the @mentions attached: the turn's input. */
async function preparedInput(
  session: Session,
  { blocks, typed, files, rules }: ReadPrompt,
  command: ReturnType<typeof parseCommand>,
  review: string | null,
  place: PromptPlace,
  signal: AbortSignal,
  context?: string,
): Promise<Omit<PromptInput, "turnId">> {
  const read = readBlocks(blocks, join(place.attachmentsDir, session.id), new Set([...files.saved.keys(), ...files.unsaved.keys()]));
  // The mentioned files as the person has them (an editor's unsaved buffers), where the session has such access.
  const access = session.fileAccess;
  // The wait is bounded by the access's own time limit (the editor's 5 s), and ends when the turn is cancelled.
  const held = access ? await heldMentions(typed.searched, rules, [...files.saved.values()], (path) => access.readText(path, signal)) : new Map<string, string>();
  const mentions = expandMentions(typed.searched, rules, [...files.saved.values()], held);
  // The command's own text is never searched for @mentions; what the person typed is.
  const after = mentions.text.slice(typed.searched.length);
  let text = typed.shown + after;
  if (review !== null) text = review + after;
  else if (command?.type === "prompt") text = command.text + after;
  // One file sent twice with the same text is attached once.
  const added = [...new Set(files.unsaved.values()), read.added].filter((part) => part !== "").join("\n\n");
  if (added) text = `${text}\n\n${added}`;
  if (context) text = `${context}\n\n${text}`;
  session.markRead([...mentions.read, ...read.read], held);
  for (const path of [...mentions.read, ...mentions.images.map((i) => i.path)]) place.recordUse?.(session.root, path);
  const attachments = [...read.attachments, ...mentions.images];
  const shown = shownBlocks(blocks, read.saved);
  return {
    text,
    ...(shown ? { blocks: shown } : {}),
    ...(text !== typed.shown ? { display: typed.shown } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(command ? { command: command.name } : {}),
    ...(command?.type === "prompt" && command.model ? { model: command.model } : {}),
    ...(command?.type === "prompt" && command.effort ? { effort: command.effort } : {}),
  };
}

/** compact, undo and plan without a task: they act and send nothing to the model, in the turn queue. */
async function runAction(session: Session, name: "compact" | "undo" | "plan", place: PromptPlace): Promise<Record<string, unknown>> {
  if (name === "compact") return { summary: (await session.compactNow()).summary };
  // An editor's files are put back through it, as its tools wrote them.
  if (name === "undo") return { undone: session.fileAccess?.writesHeld ? await session.undoNow(session.fileAccess) : session.undoNow() };
  return { mode: session.setMode(cappedMode("plan", place.maxMode)) };
}
