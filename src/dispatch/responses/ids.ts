// Ids in OpenAI's style: a type prefix and random hex. The prefix tells a client (and a
// person reading a log) what the id names; 24 random bytes keep them unguessable, since a
// stored response is fetched by its id alone.
import { randomBytes } from 'node:crypto';

export type ItemPrefix = 'msg' | 'fc' | 'fco' | 'rs' | 'call';

const hex = () => randomBytes(24).toString('hex');

export const newResponseId = (): string => `resp_${hex()}`;

export const newItemId = (prefix: ItemPrefix): string => `${prefix}_${hex()}`;
