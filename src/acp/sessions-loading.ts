/**
 * The sessions a session/load of one connection has opened and not yet attached (session-load.ts):
 * they are the connection's from the first moment, so that another editor or the web asking where
 * one is (whereabouts.ts) is refused it while the replay runs, as it is once it is attached.
 * Counted: one connection may load one session twice at once.
 */
export function sessionsLoading() {
  const counts = new Map<string, number>();
  return {
    has: (sessionId: string) => counts.has(sessionId),
    ids: () => [...counts.keys()],
    /** Marks the session as loading here; the function given back says this load is over (once, however often called). */
    begin(sessionId: string): () => void {
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
