// The CLI talks to the gateway over HTTP: whatever it loads, directly or through setup, doctor,
// config and the rest it may import, holds no engine, slot, model, host or server code
// (docs/development.md, "The layer map"). eslint checks each file's own imports; this follows
// them all, from every module under src/cli, static and dynamic `import()` alike (the CLI
// loads each command's module lazily, and that module is still the CLI's). Type-only imports
// load nothing and are not followed. What must run such code is handed in by the composition
// root (bin/main.ts, CliHost in src/cli/program.ts): `svc serve`, `svc doctor`'s battery and
// `svc setup`'s hardware probe. bin is outside the closure because nothing in src/cli imports it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
/** The folders the CLI's closure may not reach; host/ includes the hardware probe (host/hardware/). */
const FORBIDDEN = ['engines', 'slots', 'models', 'host', 'server'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

function typeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x.js'` runs x
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

interface Edges {
  /** Relative specifiers this module loads when it runs (now or through `import()`). */
  loads: string[];
  /** `import()` calls whose specifier is not a string literal: the test cannot follow them. */
  opaque: string[];
}

function edgesOf(file: string): Edges {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const edges: Edges = { loads: [], opaque: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !typeOnly(node) && ts.isStringLiteral(node.moduleSpecifier)) edges.loads.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) edges.loads.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteralLike(specifier)) edges.loads.push(specifier.text);
      else edges.opaque.push(`${relative(SRC, file)}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  edges.loads = edges.loads.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
  return edges;
}

/** Every module reachable from the entry points, each with the module that first loads it. */
function closure(entries: string[]): { loadedBy: Map<string, string | null>; opaque: string[] } {
  const loadedBy = new Map<string, string | null>(entries.map((e) => [e, null]));
  const opaque: string[] = [];
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (!existsSync(file)) continue; // a package subpath or a .json: not src/ code
    const edges = edgesOf(file);
    opaque.push(...edges.opaque);
    for (const next of edges.loads) {
      if (loadedBy.has(next)) continue;
      loadedBy.set(next, file);
      queue.push(next);
    }
  }
  return { loadedBy, opaque };
}

/** cli/commands/doctor.ts → doctor/checks.ts → host/hardware.ts: how the CLI reaches a module. */
function chain(file: string, loadedBy: Map<string, string | null>): string {
  const steps: string[] = [];
  for (let at: string | null | undefined = file; at; at = loadedBy.get(at)) steps.unshift(relative(SRC, at));
  return steps.join(' → ');
}

describe('the CLI import closure', () => {
  const { loadedBy, opaque } = closure(sources(join(SRC, 'cli')));
  const inClosure = [...loadedBy.keys()].map((f) => relative(SRC, f));

  it('follows the CLI into the layers it may use', () => {
    // A closure that stopped at src/cli would hold nothing forbidden for the wrong reason.
    expect(inClosure).toEqual(expect.arrayContaining(['cli/program.ts', 'cli/commands/setup.ts', 'setup/answers.ts', 'doctor/perms.ts', 'config/load.ts', 'protocol/errors.ts']));
  });

  it('holds no engine, slot, model, host or server module', () => {
    const reached = [...loadedBy.keys()].filter((f) => FORBIDDEN.includes(relative(SRC, f).split('/')[0]!));
    expect(reached.map((f) => chain(f, loadedBy))).toEqual([]);
  });

  it('has no import() it cannot follow', () => {
    expect(opaque).toEqual([]);
  });
});
