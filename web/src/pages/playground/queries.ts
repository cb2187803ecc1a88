// The Playground's server state: the /v1 model list, read again when slots come and go
// (index.tsx follows the event stream), beside the app's slot list for slot types and states.
import { queryOptions } from '@tanstack/react-query';
import type { ModelList } from '../../../../src/protocol/v1-wire.js';
import { getJson } from '../../api-error.js';

export const v1ModelsQuery = queryOptions({ queryKey: ['v1', 'models'], queryFn: ({ signal }) => getJson<ModelList>('/v1/models', signal) });

/** Events after which the model list may differ: a slot served or not, created, edited, … */
export const RELIST_MODELS = /^(slot\.(state|created|deleted|edited|evicted)|model\.assigned|config\.reloaded|stack\.apply\.completed)$/;
