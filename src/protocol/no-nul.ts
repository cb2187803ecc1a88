// Fields whose value goes where a NUL character cannot: Postgres text and jsonb (memory), a
// program's argv and environment (extra_args, flags, a tool server's command). The HTTP
// parser refuses NUL in every /api and /mcp body already (server/json-body.ts); these
// refinements hold the same rule for what comes another way: a tool call of the svc-memory
// MCP server from the omni loop, a file the host wrote.
import { z } from 'zod';
import { containsNul, NUL_REFUSED } from './input-bounds.js';

/** A string without NUL. */
export const nulFreeString = () => z.string().refine((value) => !value.includes('\u0000'), { message: NUL_REFUSED });

/** A JSON object (metadata, a bank's config) with no NUL in any key or string. */
export const nulFreeRecord = () => z.record(z.string(), z.unknown()).refine((value) => !containsNul(value), { message: NUL_REFUSED });
