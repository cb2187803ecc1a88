#!/usr/bin/env node
// `npm run lint` step: no import cycles among the modules under src/ (tests excluded).
// eslint's layer rules (eslint.config.js) keep arrows pointing down between layers; this
// catches cycles inside one layer too (a route module importing the app that imports it).
// Type-only imports count: a cycle of types is still two modules that cannot be read apart.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The project modules a file imports (relative specifiers, `.js` mapped back to `.ts`). */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1].replace(/\.js$/, '.ts')));
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const found = [];
  const visit = (node) => {
    info.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!info.has(next)) {
        visit(next);
        info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
      } else if (info.get(next).onStack) {
        info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
      }
    }
    if (info.get(node).low !== info.get(node).index) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      info.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!info.has(node)) visit(node);
  return found;
}

const graph = new Map(sources(src).map((file) => [file, importsOf(file)]));
const found = cycles(graph);
if (found.length > 0) {
  for (const component of found) {
    process.stderr.write(`import cycle among: ${component.map((f) => relative(root, f)).sort().join(', ')}\n`);
  }
  process.exit(1);
}
process.stdout.write(`no import cycles among ${graph.size} modules under src/\n`);
