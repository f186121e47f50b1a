/**
 * Which link owns each session the service runs: a session is attached to one connection at a
 * time, and a new link of the same login that names it takes it (the old one lets go of it
 * first). Another login's link never does (session-logins.ts `openRefusal` refuses it first).
 */
export class LinkOwners {
  private readonly owners = new Map<string, { owner: object; login: string | null; release: () => void }>();

  /**
   * Attaches a session to an owner (a link of `login`); whoever owned it before is told to let go.
   * One another login's link owns is not taken: that is an error of the caller's.
   */
  take(sessionId: string, owner: object, release: () => void, login: string | null = null): void {
    const previous = this.owners.get(sessionId);
    if (previous && previous.owner !== owner) {
      if (previous.login !== login) throw new Error(`session ${sessionId} is open on ${previous.login ?? "another"}'s link, not ${login ?? "this one"}'s to take`);
      previous.release();
    }
    this.owners.set(sessionId, { owner, login, release });
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

  /** The login whose link owns a session, or null when none does (or its owner said no login). */
  loginOf(sessionId: string): string | null {
    return this.owners.get(sessionId)?.login ?? null;
  }

  sessionsOf(owner: object): string[] {
    return [...this.owners.entries()].filter(([, o]) => o.owner === owner).map(([id]) => id);
  }
}
