/**
 * Which link owns each session the service runs: a session is attached to one connection at a
 * time, and a new link that names it takes it (the old one lets go of it first).
 */
export class LinkOwners {
  private readonly owners = new Map<string, { owner: object; release: () => void }>();

  /** Attaches a session to an owner; whoever owned it before is told to let go. */
  take(sessionId: string, owner: object, release: () => void): void {
    const previous = this.owners.get(sessionId);
    if (previous && previous.owner !== owner) previous.release();
    this.owners.set(sessionId, { owner, release });
  }

  /** The owner lets go (its link closed): only if it still owns the session. */
  drop(sessionId: string, owner: object): void {
    if (this.owners.get(sessionId)?.owner === owner) this.owners.delete(sessionId);
  }

  /** The session is gone: whoever owns it lets go. */
  release(sessionId: string): void {
    const owned = this.owners.get(sessionId);
    this.owners.delete(sessionId);
    owned?.release();
  }

  ownerOf(sessionId: string): object | null {
    return this.owners.get(sessionId)?.owner ?? null;
  }

  sessionsOf(owner: object): string[] {
    return [...this.owners.entries()].filter(([, o]) => o.owner === owner).map(([id]) => id);
  }
}
