import { attachmentName, type Block } from "./blocks.ts";

/**
 * How a front end's blocks make one text. "paragraphs": the link's rule, each text block a
 * paragraph, a resource link "(see uri)" as one. "in-place": an editor's, which splits a sentence
 * around each mention: the blocks joined as written, nothing added or lost between them, each
 * mention standing where it was.
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
  for (const block of blocks) {
    if (block.type === "text") {
      shown += block.text;
      searched += block.text;
      continue;
    }
    const standing = mentions.get(block) ?? standIn(block);
    if (standing === null) continue;
    shown += standing;
    searched += "\n";
  }
  return { shown, searched };
}

/** What stands for a block that names no project file: a link's "(see uri)", a resource's attachment name. */
function standIn(block: Block): string | null {
  if (block.type === "resource_link") return `(see ${block.uri})`;
  if (block.type === "resource") return attachmentName(block.resource.uri);
  return null;
}
