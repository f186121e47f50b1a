import { attachmentName, type Block } from "./blocks.ts";

/**
 * How a front end's blocks make one text. "paragraphs": the link's rule, each text block a
 * paragraph, a resource link "(see uri)" as one. "in-place": an editor's, which splits a sentence
 * around each mention: the blocks joined as written, each mention standing where it was, with a
 * space only where it would otherwise fuse with a word or another mention.
 */
export type Joining = "paragraphs" | "in-place";

/**
 * What the person typed. `shown`: the prompt as the model and the transcript read it, where a
 * /command is read. `searched`: where typed @mentions are looked for, the text blocks alone (apart,
 * where something stood between them), so that a mention put in place is never read a second time
 * from the cwd.
 */
export type Typed = { shown: string; searched: string };

/**
 * The typed text of a prompt's blocks. `mentions` are the @paths of the project files the blocks
 * name, put in place of them when joined in place; any other resource link stays "(see uri)" and
 * any other embedded resource its attachment's name. Images stand nowhere: they are attached.
 */
export function typedText(blocks: readonly Block[], joining: Joining, mentions: ReadonlyMap<Block, string>): Typed {
  if (joining === "paragraphs") {
    const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : b.type === "resource_link" ? [`(see ${b.uri})`] : [])).join("\n\n");
    return { shown: text, searched: text };
  }
  let shown = "";
  let searched = "";
  let afterStanding = false;
  for (const block of blocks) {
    if (block.type === "text") {
      if (afterStanding && GLUED.test(block.text.charAt(0))) shown += " ";
      shown += block.text;
      searched += block.text;
      afterStanding = false;
      continue;
    }
    const standing = mentions.get(block) ?? standIn(block);
    if (standing === null) continue;
    if (afterStanding || GLUED.test(shown.charAt(shown.length - 1))) shown += " ";
    shown += standing;
    searched += "\n";
    afterStanding = true;
  }
  return { shown, searched };
}

/**
 * A character a mention would fuse with: a client that sends its attachments as blocks of their own
 * ("look at these", a link, a link) writes no space around them, and "these@a.md@b.md" reads as one
 * word. Whitespace and punctuation ("(", ", ", ".") stay as the editor wrote them.
 */
const GLUED = /[\p{L}\p{N}_@]/u;

/** What stands for a block that names no project file: a link's "(see uri)", a resource's attachment name. */
function standIn(block: Block): string | null {
  if (block.type === "resource_link") return `(see ${block.uri})`;
  if (block.type === "resource") return attachmentName(block.resource.uri);
  return null;
}
