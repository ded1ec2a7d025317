/**
 * "Is this string a substring of that text?" asked for every line of a page: a suffix automaton of the text answers
 * each question in time linear in the line, after one pass over the text. Asking `text.includes(line)` per line
 * costs the text's length every time, which for a raw page of 40k lines was seconds per view.
 *
 * The automaton lives in typed arrays (states: length, suffix link, first edge; edges: code unit, target, next
 * edge), with a dense table for the root, whose edges are as many as the text's distinct characters.
 */
export class SubstringIndex {
  private readonly length: Int32Array;
  private readonly link: Int32Array;
  private readonly head: Int32Array;
  private readonly edgeUnit: Int32Array;
  private readonly edgeTarget: Int32Array;
  private readonly edgeNext: Int32Array;
  private readonly root = new Int32Array(0x10000).fill(-1);
  private states = 1;
  private edges = 0;
  private last = 0;

  /** Indexes `text`; with `deferred`, only allocates, and {@link SubstringIndex.build} adds the text. */
  constructor(text: string, options: { deferred?: boolean } = {}) {
    // A suffix automaton of n characters has at most 2n - 1 states and 3n - 4 edges.
    const maxStates = 2 * text.length + 2;
    const maxEdges = 3 * text.length + 4;
    this.length = new Int32Array(maxStates);
    this.link = new Int32Array(maxStates);
    this.head = new Int32Array(maxStates).fill(-1);
    this.edgeUnit = new Int32Array(maxEdges);
    this.edgeTarget = new Int32Array(maxEdges);
    this.edgeNext = new Int32Array(maxEdges);
    this.link[0] = -1;
    if (!options.deferred) for (let i = 0; i < text.length; i += 1) this.extend(text.charCodeAt(i));
  }

  /**
   * The index of `text`, built `chunk` code units at a time with a turn of the event loop between chunks, so a
   * server indexing a large text still answers other requests meanwhile.
   */
  static async build(text: string, chunk = 100_000): Promise<SubstringIndex> {
    const index = new SubstringIndex(text, { deferred: true });
    for (let from = 0; from < text.length; from += chunk) {
      if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const to = Math.min(text.length, from + chunk);
      for (let i = from; i < to; i += 1) index.extend(text.charCodeAt(i));
    }
    return index;
  }

  /** True when `s` occurs in the text (the empty string always does), compared by UTF-16 code units. */
  has(s: string): boolean {
    let state = 0;
    for (let i = 0; i < s.length; i += 1) {
      state = this.get(state, s.charCodeAt(i));
      if (state < 0) return false;
    }
    return true;
  }

  private get(state: number, unit: number): number {
    if (state === 0) return this.root[unit]!;
    for (let e = this.head[state]!; e >= 0; e = this.edgeNext[e]!)
      if (this.edgeUnit[e] === unit) return this.edgeTarget[e]!;
    return -1;
  }

  private set(state: number, unit: number, target: number): void {
    if (state === 0) {
      this.root[unit] = target;
      return;
    }
    for (let e = this.head[state]!; e >= 0; e = this.edgeNext[e]!)
      if (this.edgeUnit[e] === unit) {
        this.edgeTarget[e] = target;
        return;
      }
    const e = this.edges++;
    this.edgeUnit[e] = unit;
    this.edgeTarget[e] = target;
    this.edgeNext[e] = this.head[state]!;
    this.head[state] = e;
  }

  private extend(unit: number): void {
    const current = this.states++;
    this.length[current] = this.length[this.last]! + 1;
    let p = this.last;
    while (p !== -1 && this.get(p, unit) < 0) {
      this.set(p, unit, current);
      p = this.link[p]!;
    }
    if (p === -1) this.link[current] = 0;
    else {
      const q = this.get(p, unit);
      if (this.length[p]! + 1 === this.length[q]) this.link[current] = q;
      else {
        // q is never the root here: the root's length is 0, so length[p] + 1 === length[root] cannot fail for it.
        const clone = this.states++;
        this.length[clone] = this.length[p]! + 1;
        this.link[clone] = this.link[q]!;
        for (let e = this.head[q]!; e >= 0; e = this.edgeNext[e]!)
          this.set(clone, this.edgeUnit[e]!, this.edgeTarget[e]!);
        while (p !== -1 && this.get(p, unit) === q) {
          this.set(p, unit, clone);
          p = this.link[p]!;
        }
        this.link[q] = clone;
        this.link[current] = clone;
      }
    }
    this.last = current;
  }
}
