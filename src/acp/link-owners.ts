/**
 * Which link owns each session the service runs: a session is attached to one connection at a
 * time, and a new link that names it takes it (the old one lets go of it first).
 */
export class LinkOwners {
  private readonly holders = new Map<string, { owner: object; release: () => void }>();

  /** Attaches a session to an owner; whoever held it before is told to let go. */
  take(sessionId: string, owner: object, release: () => void): void {
    const previous = this.holders.get(sessionId);
    if (previous && previous.owner !== owner) previous.release();
    this.holders.set(sessionId, { owner, release });
  }

  /** The owner lets go (its link closed): only if it still holds the session. */
  drop(sessionId: string, owner: object): void {
    if (this.holders.get(sessionId)?.owner === owner) this.holders.delete(sessionId);
  }

  /** The session is gone: whoever holds it lets go. */
  release(sessionId: string): void {
    const holder = this.holders.get(sessionId);
    this.holders.delete(sessionId);
    holder?.release();
  }

  ownerOf(sessionId: string): object | null {
    return this.holders.get(sessionId)?.owner ?? null;
  }

  sessionsOf(owner: object): string[] {
    return [...this.holders.entries()].filter(([, h]) => h.owner === owner).map(([id]) => id);
  }
}
