// For the tests only (nothing else imports it): reads the GBNF text the compiler writes back,
// to ask of the text itself (not of the compiler's data) which strings it admits, and to
// sample strings from it at random, so tests can validate what a grammar lets through
// without running a model.

type Node =
  | { kind: 'text'; text: string; codes: number[] }
  | { kind: 'class'; ranges: Array<[number, number]> }
  | { kind: 'rule'; name: string }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; item: Node; min: number; max: number };

const SIMPLE_ESCAPES: Record<string, number> = { t: 9, r: 13, n: 10, '\\': 92, '"': 34, '[': 91, ']': 93 };

class GbnfReader {
  private at = 0;
  constructor(private readonly src: string) {}

  private char(): number {
    const c = this.src[this.at]!;
    if (c !== '\\') {
      const code = this.src.codePointAt(this.at)!;
      this.at += code > 0xffff ? 2 : 1;
      return code;
    }
    const e = this.src[this.at + 1]!;
    const width = { x: 2, u: 4, U: 8 }[e];
    if (width) {
      this.at += 2 + width;
      return parseInt(this.src.slice(this.at - width, this.at), 16);
    }
    if (SIMPLE_ESCAPES[e] === undefined) throw new Error(`unknown escape \\${e}`);
    this.at += 2;
    return SIMPLE_ESCAPES[e];
  }

  private skipSpace() {
    while (this.src[this.at] === ' ') this.at++;
  }

  alternatives(): Node {
    const options = [this.sequence()];
    while (this.src[this.at] === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (this.skipSpace(); this.at < this.src.length && !'|)'.includes(this.src[this.at]!); this.skipSpace()) items.push(this.quantified(this.atom()));
    return { kind: 'seq', items };
  }

  private atom(): Node {
    const c = this.src[this.at]!;
    if (c === '"') {
      this.at++;
      let text = '';
      while (this.src[this.at] !== '"') text += String.fromCodePoint(this.char());
      this.at++;
      return { kind: 'text', text, codes: [...text].map((ch) => ch.codePointAt(0)!) };
    }
    if (c === '[') {
      this.at++;
      const ranges: Array<[number, number]> = [];
      while (this.src[this.at] !== ']') {
        const lo = this.char();
        if (this.src[this.at] === '-' && this.src[this.at + 1] !== ']') {
          this.at++;
          ranges.push([lo, this.char()]);
        } else ranges.push([lo, lo]);
      }
      this.at++;
      return { kind: 'class', ranges };
    }
    if (c === '(') {
      this.at++;
      const inner = this.alternatives();
      this.at++;
      return inner;
    }
    const name = /^[A-Za-z0-9-]+/.exec(this.src.slice(this.at));
    if (!name) throw new Error(`unexpected ${JSON.stringify(this.src.slice(this.at, this.at + 10))}`);
    this.at += name[0].length;
    return { kind: 'rule', name: name[0] };
  }

  private quantified(item: Node): Node {
    const c = this.src[this.at];
    const simple = { '?': [0, 1], '*': [0, Infinity], '+': [1, Infinity] }[c ?? ''];
    if (simple) {
      this.at++;
      return { kind: 'repeat', item, min: simple[0]!, max: simple[1]! };
    }
    const braces = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at)) : null;
    if (!braces) return item;
    this.at += braces[0].length;
    const min = Number(braces[1]);
    return { kind: 'repeat', item, min, max: braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]) };
  }
}

export function parseGbnf(text: string): Map<string, Node> {
  const rules = new Map<string, Node>();
  for (const line of text.split('\n').filter(Boolean)) {
    const [, name, body] = /^([A-Za-z0-9-]+) ::= (.*)$/.exec(line) ?? [];
    if (!name || body === undefined) throw new Error(`not a rule: ${line}`);
    rules.set(name, new GbnfReader(body).alternatives());
  }
  if (!rules.has('root')) throw new Error('no root rule');
  return rules;
}

/**
 * Does the grammar admit a string? Each node gives the set of positions where it can end,
 * memoised per rule and position: exact for any grammar without left recursion (the
 * compiler refuses that), recursive ones included.
 */
export function gbnfMatcher(text: string): { test(s: string): boolean } {
  const rules = parseGbnf(text);
  return {
    test(s: string): boolean {
      const codes = [...s].map((ch) => ch.codePointAt(0)!);
      const OPEN: number[] = [];
      const memo = new Map<string, Array<number[] | undefined>>([...rules.keys()].map((name) => [name, []]));
      const unique = (positions: number[]) => (positions.length < 2 ? positions : [...new Set(positions)]);
      const ends = (node: Node, pos: number): number[] => {
        switch (node.kind) {
          case 'text': return node.codes.every((code, i) => codes[pos + i] === code) ? [pos + node.codes.length] : [];
          case 'class': return pos < codes.length && node.ranges.some(([lo, hi]) => codes[pos]! >= lo && codes[pos]! <= hi) ? [pos + 1] : [];
          case 'rule': {
            const known = memo.get(node.name)!;
            if (known[pos] === OPEN) throw new Error(`left recursion at ${node.name}`);
            if (known[pos]) return known[pos];
            known[pos] = OPEN;
            return (known[pos] = ends(rules.get(node.name)!, pos));
          }
          case 'seq': return node.items.reduce((at, item) => (at.length === 0 ? at : unique(at.flatMap((p) => ends(item, p)))), [pos]);
          case 'alt': return unique(node.options.flatMap((option) => ends(option, pos)));
          case 'repeat': {
            const found = node.min === 0 ? [pos] : [];
            let at = [pos];
            // More rounds than characters left cannot add an end (an item that matches "" adds none).
            for (let round = 1; round <= node.max && at.length > 0 && round <= node.min + codes.length + 1; round++) {
              at = unique(at.flatMap((p) => ends(node.item, p)));
              if (round >= node.min) found.push(...at);
            }
            return unique(found);
          }
        }
      };
      return ends(rules.get('root')!, 0).includes(codes.length);
    },
  };
}

/** A small deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Strings the grammar admits, chosen at random (repetitions up to `spread` beyond their
 * minimum). Past `depth` nested rules each choice takes the way out that nests least, so a
 * recursive grammar finishes.
 */
export function sampleGbnf(text: string, seed: number, count: number, spread = 4, depth = 12): string[] {
  const rules = parseGbnf(text);
  const next = random(seed);
  const pick = (n: number) => Math.floor(next() * n);
  // How many rules deep a node must go at least before it can end (a fixpoint over the rules).
  const height = new Map<string, number>([...rules.keys()].map((name) => [name, Infinity]));
  const heightOf = (node: Node): number => {
    switch (node.kind) {
      case 'text':
      case 'class': return 0;
      case 'rule': return height.get(node.name)!;
      case 'seq': return Math.max(0, ...node.items.map(heightOf));
      case 'alt': return Math.min(...node.options.map(heightOf));
      case 'repeat': return node.min === 0 ? 0 : heightOf(node.item);
    }
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, body] of rules) {
      const h = 1 + heightOf(body);
      if (h >= height.get(name)!) continue;
      height.set(name, h);
      changed = true;
    }
  }
  const emit = (node: Node, level: number): string => {
    switch (node.kind) {
      case 'text': return node.text;
      case 'class': {
        const [lo, hi] = node.ranges[pick(node.ranges.length)]!;
        return String.fromCodePoint(lo + pick(Math.min(hi - lo + 1, 200)));
      }
      case 'rule': return emit(rules.get(node.name)!, level + 1);
      case 'seq': return node.items.map((item) => emit(item, level)).join('');
      case 'alt': {
        const lowest = Math.min(...node.options.map(heightOf));
        const options = level > depth ? node.options.filter((o) => heightOf(o) === lowest) : node.options;
        return emit(options[pick(options.length)]!, level);
      }
      case 'repeat': {
        const extra = level > depth ? 0 : pick(spread + 1);
        const times = Math.min(node.max, node.min + extra);
        return Array.from({ length: times }, () => emit(node.item, level)).join('');
      }
    }
  };
  return Array.from({ length: count }, () => emit(rules.get('root')!, 0));
}
