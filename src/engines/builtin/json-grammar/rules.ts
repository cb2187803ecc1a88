// The named rules of one grammar. Equal bodies share one rule (by rendered text), so ten
// properties of the same shape, or an anyOf nested in itself, cost one rule each, not ten.
import { ref, referencedRules, render, type Expr } from './grammar.js';

/** GBNF rule names are letters, digits and dashes. */
const ruleName = (hint: string) => hint.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48) || 'rule';

export class Rules {
  private readonly bodies = new Map<string, Expr>();
  private readonly byText = new Map<string, string>();
  /** Where in the schema a rule comes from, for the problems grammar-checks.ts finds. */
  readonly paths = new Map<string, string>();

  constructor() {
    this.bodies.set('root', { kind: 'seq', items: [] });
  }

  /** A fresh, unique name (its body comes later, through fill: rules may refer to themselves). */
  reserve(hint: string, path?: string): string {
    const base = ruleName(hint);
    let name = base;
    for (let n = 2; this.bodies.has(name); n++) name = `${base}-${n}`;
    this.bodies.set(name, { kind: 'seq', items: [] });
    if (path !== undefined) this.paths.set(name, path);
    return name;
  }

  fill(name: string, body: Expr): void {
    this.bodies.set(name, body);
    const text = render(body);
    if (!this.byText.has(text)) this.byText.set(text, name);
  }

  /** A reference to a rule with this body: an existing equal one, or a new one. */
  define(hint: string, body: Expr): Expr {
    const existing = this.byText.get(render(body));
    if (existing !== undefined) return ref(existing);
    const name = this.reserve(hint);
    this.fill(name, body);
    return ref(name);
  }

  body(name: string): Expr {
    const body = this.bodies.get(name);
    if (!body) throw new Error(`no rule ${name}`);
    return body;
  }

  /** The rules `root` reaches, root first then in order of first mention. */
  reachable(root: Expr): string[] {
    this.bodies.set('root', root);
    const order = ['root'];
    const seen = new Set(order);
    for (let i = 0; i < order.length; i++) {
      for (const name of referencedRules(this.body(order[i]!))) if (!seen.has(name) && seen.add(name)) order.push(name);
    }
    return order;
  }

  /** The grammar text with `root` as its root rule. */
  text(root: Expr): string {
    return this.reachable(root).map((name) => `${name} ::= ${render(this.body(name))}`).join('\n') + '\n';
  }
}
