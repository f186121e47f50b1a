/**
 * Exact string replacement, shared by edit and multi_edit: where an old string is in a file's
 * text, with the file's line endings kept, and a sentence the model can act on when it is not.
 */

/** Where one replacement goes in the text: [start, end) and what is put there. */
export type Span = { start: number; end: number; text: string };

/** The spans of one old string in the text, or why there are none the model may use. */
export function locate(content: string, oldString: string, newString: string, replaceAll: boolean, shown: string): { spans: Span[] } | { problem: string } {
  const { find, replace } = matchLineEndings(content, oldString, newString);
  const starts = occurrences(content, find);
  if (starts.length === 0) return { problem: notFoundMessage(content, oldString, shown) };
  if (starts.length > 1 && !replaceAll) {
    return {
      problem: `old_string occurs ${starts.length} times in ${shown}: add surrounding lines to old_string so it matches exactly one place, or set replace_all to change all ${starts.length}.`,
    };
  }
  return { spans: starts.map((start) => ({ start, end: start + find.length, text: replace })) };
}

/** The text with the spans (in order, none overlapping) put in. */
export function applySpans(content: string, spans: readonly Span[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const span of spans) {
    parts.push(content.slice(at, span.start), span.text);
    at = span.end;
  }
  parts.push(content.slice(at));
  return parts.join("");
}

/**
 * In a file with CRLF line endings, strings written with LF only are given CRLF, so they match
 * and the file keeps its endings. A string that already holds `\r` is taken as it is.
 */
function matchLineEndings(content: string, oldString: string, newString: string): { find: string; replace: string } {
  if (!usesCrlf(content)) return { find: oldString, replace: newString };
  const crlf = (text: string): string => (text.includes("\r") ? text : text.replace(/\n/g, "\r\n"));
  const find = crlf(oldString);
  // A mixed file may hold the LF form where the CRLF form is missing.
  if (!content.includes(find) && content.includes(oldString)) return { find: oldString, replace: newString };
  return { find, replace: crlf(newString) };
}

function usesCrlf(content: string): boolean {
  const crlf = content.split("\r\n").length - 1;
  if (crlf === 0) return false;
  const lf = content.split("\n").length - 1 - crlf;
  return crlf >= lf;
}

function occurrences(text: string, part: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) starts.push(at);
  return starts;
}

/** Says old_string was not found, with what is cheap to find out about why. */
function notFoundMessage(content: string, oldString: string, shown: string): string {
  const parts = [`old_string was not found in ${shown}.`];
  if (/^\s*\d+\t/m.test(oldString)) {
    parts.push("It seems to hold read's line numbers: leave out the number and the tab before each line.");
  }
  const squash = (text: string): string => text.replace(/\s+/g, " ").trim();
  if (squash(content).includes(squash(oldString))) {
    parts.push("It matches if whitespace is ignored: copy the indentation (tabs or spaces) and line breaks exactly.");
  }
  const closest = closestLines(content, oldString);
  if (closest) parts.push(`Lines of the file like one of its lines:\n${closest}`);
  else parts.push("Read the file again to see its current content.");
  return parts.join(" ");
}

/**
 * Up to three lines of the file like one of old_string's lines (the longest that is found), numbered
 * as read shows them.
 */
function closestLines(content: string, oldString: string): string | null {
  const candidates = oldString
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length >= 3)
    .sort((a, b) => b.length - a.length)
    .slice(0, 5);
  const lines = content.split("\n").map((line) => line.replace(/\r$/, ""));
  for (const wanted of candidates) {
    const hits = lines.flatMap((line, i) => (line.trim() === wanted || (wanted.length >= 8 && line.includes(wanted)) ? [i] : []));
    if (hits.length === 0) continue;
    return hits
      .slice(0, 3)
      .map((i) => `${i + 1}\t${lines[i] ?? ""}`)
      .join("\n");
  }
  return null;
}
