/** The terminal's own words, at the end of `lembas --help` (kept apart from tui.ts, which opens the store). */
export const TERMINAL_USAGE = `lembas [PROMPT] [-c | -r [ID] [--fork]] [--model REF] [--mode plan|manual|edit|auto] [--effort off|low|medium|high] [--share]
  Opens the interactive session in this directory (PROMPT is its first message).
  -c, --continue   the most recent session of this directory
  -r, --resume     a session by id, or a picker without one
  --fork           with -r ID: a new session from its conversation (the original stays as it was)
  --share          share the session with the web through the service, even outside remote.roots
  Not at a terminal (a pipe), it runs PROMPT, or the prompt on stdin, as lembas run does.`;
