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
    if (!options.deferred)
      for (let position = 0; position < text.length; position += 1) this.extend(text.charCodeAt(position));
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
      for (let position = from; position < to; position += 1) index.extend(text.charCodeAt(position));
    }
    return index;
  }

  /** True when `needle` occurs in the text (the empty string always does), compared by UTF-16 code units. */
  has(needle: string): boolean {
    let state = 0;
    for (let position = 0; position < needle.length; position += 1) {
      state = this.get(state, needle.charCodeAt(position));
      if (state < 0) return false;
    }
    return true;
  }

  private get(state: number, unit: number): number {
    if (state === 0) return this.root[unit]!;
    for (let edge = this.head[state]!; edge >= 0; edge = this.edgeNext[edge]!)
      if (this.edgeUnit[edge] === unit) return this.edgeTarget[edge]!;
    return -1;
  }

  private set(state: number, unit: number, target: number): void {
    if (state === 0) {
      this.root[unit] = target;
      return;
    }
    for (let edge = this.head[state]!; edge >= 0; edge = this.edgeNext[edge]!)
      if (this.edgeUnit[edge] === unit) {
        this.edgeTarget[edge] = target;
        return;
      }
    const edge = this.edges++;
    this.edgeUnit[edge] = unit;
    this.edgeTarget[edge] = target;
    this.edgeNext[edge] = this.head[state]!;
    this.head[state] = edge;
  }

  private extend(unit: number): void {
    const current = this.states++;
    this.length[current] = this.length[this.last]! + 1;
    let suffix = this.last;
    while (suffix !== -1 && this.get(suffix, unit) < 0) {
      this.set(suffix, unit, current);
      suffix = this.link[suffix]!;
    }
    if (suffix === -1) this.link[current] = 0;
    else {
      const target = this.get(suffix, unit);
      if (this.length[suffix]! + 1 === this.length[target]) this.link[current] = target;
      else {
        // `target` is never the root here: the root's length is 0, so length[suffix] + 1 === length[root] cannot fail
        // for it.
        const clone = this.states++;
        this.length[clone] = this.length[suffix]! + 1;
        this.link[clone] = this.link[target]!;
        for (let edge = this.head[target]!; edge >= 0; edge = this.edgeNext[edge]!)
          this.set(clone, this.edgeUnit[edge]!, this.edgeTarget[edge]!);
        while (suffix !== -1 && this.get(suffix, unit) === target) {
          this.set(suffix, unit, clone);
          suffix = this.link[suffix]!;
        }
        this.link[target] = clone;
        this.link[current] = clone;
      }
    }
    this.last = current;
  }
}
