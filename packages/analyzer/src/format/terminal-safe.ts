/** What of a trace's text may reach a terminal. */

// ANSI/VT escape sequences (CSI, OSC, and the rest of ESC sequences), then any other C0/C1 control or DEL
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 (but the line feed), DEL, C1, and the bidirectional overrides that reorder what a line shows
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as it may reach a terminal: escape sequences and control characters (from event names, file
 * paths, process names) removed, so a trace cannot move the cursor, recolour or retitle it; line
 * breaks kept unless `oneLine`, where they (and tabs) become spaces.
 */
export function terminalSafe(s: string, opts: { oneLine?: boolean } = {}): string {
  let t = s.replace(ESCAPES, '');
  if (opts.oneLine) t = t.replace(/[\t\n\r]/g, ' ');
  return t.replace(CONTROLS, (c) => (c === '\t' ? ' ' : ''));
}
