// Option helpers the command tree shares.
import { InvalidArgumentError, Option } from 'commander';
import { resolvePaths } from '../config/paths.js';

export const paths = () => resolvePaths();
export const json = () => new Option('--json', 'print JSON');

/** A whole number >= 1 for an option. */
export function positiveInt(value: string, option: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${option}: expected a whole number >= 1; got "${value}"`);
  return Number(value);
}

export function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError(`expected a port number 0-65535; got "${value}"`);
  return port;
}
