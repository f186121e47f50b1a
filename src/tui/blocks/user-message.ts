import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";

/** What the person sent, as they typed it (a command's name, not its body), and what it carried. */
export class UserMessage extends CachedBlock {
  constructor(
    private readonly text: string,
    private readonly theme: Theme,
    private readonly attachments: readonly { name: string }[] = [],
    /** Where it was sent from when not this terminal (the web, in a shared session). */
    private readonly from: string | null = null,
  ) {
    super();
  }

  protected draw(width: number): string[] {
    const lines = hanging(plain(this.text), width, "› ", "  ").map((line) => this.theme.bold(this.theme.user(line)));
    for (const a of this.attachments) lines.push(this.theme.dim(`  [attached ${plain(a.name)}]`));
    if (this.from) lines.push(this.theme.dim(`  sent ${this.from}`));
    return ["", ...lines];
  }
}
