/**
 * HTML built by one tagged template that escapes every interpolated value, so text from a session
 * (reports, tool results, model output) can only ever be text. Only {@link SafeHtml} passes unescaped,
 * and only this module and the template itself make it.
 */

/** Markup that is already escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return showInvisible(escapeHtml(String(value)));
}

// Bidi controls (embeddings, overrides, isolates, marks) reorder what a reader sees, and zero-width and
// tag characters hide text; session text holding them would read differently on the page than it is.
const INVISIBLE =
  /[\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;

/**
 * Writes each invisible or reordering character as its code point in visible brackets (`⟦U+202E⟧`).
 * Plain text, so it is safe in element content and attribute values alike.
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`);
}

/** The tagged template: literal parts are trusted markup, every `${value}` is escaped. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

/** A query string from parameters (undefined ones left out), for links built by the server. */
export function query(params: Record<string, string | number | undefined>): string {
  const searchParams = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') searchParams.set(key, String(value));
  const encoded = searchParams.toString();
  return encoded ? `?${encoded}` : '';
}

/** An integer with thousands separators, and the raw number for tests and scripts in `data-n`. */
export function num(value: number): SafeHtml {
  return html`<span class="num" data-n="${value}">${Math.round(value).toLocaleString('en-US')}</span>`;
}

/** An epoch time as an ISO string (UTC). */
export function time(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '';
}
