/**
 * Text bound for a terminal. Stored content (documents, model output, tool results) may carry escape sequences that
 * recolour, move the cursor, retitle the window or write the clipboard (OSC 52); printed raw, a document could act
 * on the user's terminal. Everything the CLI prints goes through {@link terminalSafe}.
 */

/* eslint-disable no-control-regex -- matching control characters is the point here */
// ESC-introduced sequences: OSC/DCS/SOS/PM/APC strings up to BEL or ST, CSI with its parameters, and two-byte escapes;
// then the 8-bit C1 forms of the same introducers.
const ESCAPE_SEQUENCES =
  /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|\u001b\[[0-?]*[ -/]*[@-~]?|\u001b[ -/]*[0-~]?|[\u0090\u0098\u009d\u009e\u009f][\s\S]*?(?:\u0007|\u009c|$)|\u009b[0-?]*[ -/]*[@-~]?/g;
// Other C0 and C1 controls (tab and newline are layout, kept), DEL, and bidi overrides that reorder what is shown.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/**
 * `text` with terminal escape sequences removed and other control characters shown as `�`, so it can only print.
 *
 * @example
 * terminalSafe('ok\u001b]52;c;ZXZpbA==\u0007 done'); // 'ok done'
 */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROLS, '\uFFFD');
}
