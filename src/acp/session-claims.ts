/**
 * The sessions a session/load of one connection has opened and not yet attached (session-load.ts):
 * they are the connection's from the first moment, so that another editor or the web asking where
 * one is (whereabouts.ts) is refused it while the replay runs, as it is once it is attached.
 * Counted: one connection may load one session twice at once.
 */
export function sessionClaims() {
  const counts = new Map<string, number>();
  return {
    has: (sessionId: string) => counts.has(sessionId),
    ids: () => [...counts.keys()],
    /** Claims the session; the function given back lets go of this claim (once, however often called). */
    claim(sessionId: string): () => void {
      counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = (counts.get(sessionId) ?? 1) - 1;
        if (left > 0) counts.set(sessionId, left);
        else counts.delete(sessionId);
      };
    },
  };
}
