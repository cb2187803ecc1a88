// The fields of the real request and file schemas, for the LAN walk (test/lan-walk.test.ts):
// every exported zod schema of the modules that define them, and the dotted path of every
// field each one has ("slot.port", "env.*" for a record's keys, "slots[].model" for an
// array's items). A field added to any of them shows up here without anyone listing it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where request bodies and config files get their schemas; a module outside these that defines one fails the walk. */
export const SCHEMA_DIRS = ['src/protocol', 'src/config/schema', 'src/server/routes'] as const;
export const SCHEMA_FILES = ['src/agents/persona-schema.ts', 'src/agents/agent-file.ts', 'src/setup/answers.ts', 'src/server/mcp-memory/schemas.ts'] as const;

const isSource = (file: string) => file.endsWith('.ts') && !file.endsWith('.test.ts');

function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && isSource(entry.name))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

/** Source files under src/ that build an object schema but are not where the walk looks. */
export function schemaModulesOutsideTheWalk(): string[] {
  const known = new Set<string>([...SCHEMA_FILES, ...SCHEMA_DIRS.flatMap(sources)]);
  return sources('src').filter((file) => !known.has(file) && /\bz\.(?:strictObject|object|looseObject)\(/.test(readFileSync(join(REPO_ROOT, file), 'utf8')));
}

/** Every exported zod schema of the schema modules, as "<module>:<export>". */
export async function exportedSchemas(): Promise<Map<string, z.ZodType>> {
  const found = new Map<string, z.ZodType>();
  for (const file of [...SCHEMA_DIRS.flatMap(sources), ...SCHEMA_FILES]) {
    const module = (await import(join(REPO_ROOT, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) if (value instanceof z.ZodType) found.set(`${file.replace(/^src\//, '').replace(/\.ts$/, '')}:${name}`, value);
  }
  return found;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch', 'success']);

/** The dotted paths of a schema's fields, leaves only; `path` is where the schema sits. */
export function fieldPaths(schema: z.ZodType, path = ''): string[] {
  const def = defOf(schema);
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (WRAPPERS.has(def.type)) return fieldPaths(def.innerType!, path);
  switch (def.type) {
    case 'object': {
      const keys = Object.entries(def.shape!).flatMap(([key, child]) => fieldPaths(child, at(key)));
      return keys.length > 0 ? keys : [path];
    }
    case 'record':
      return fieldPaths(def.valueType!, at('*'));
    case 'array':
      return fieldPaths(def.element!, `${path}[]`);
    case 'pipe':
      return unique([...fieldPaths(def.in!, path), ...fieldPaths(def.out!, path)]);
    case 'union':
      return unique(def.options!.flatMap((option) => fieldPaths(option, path)));
    case 'intersection':
      return unique([...fieldPaths(def.left!, path), ...fieldPaths(def.right!, path)]);
    case 'lazy':
      return fieldPaths(def.getter!(), path);
    case 'transform':
      return [];
    default:
      return [path];
  }
}

const unique = (paths: string[]) => [...new Set(paths)];
