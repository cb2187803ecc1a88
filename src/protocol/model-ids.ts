// Model ids and the names they are made from, shared by the server and the CLI: the id
// grammar, the split-part suffix of a file name, and the id a file stem becomes.

export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const MODEL_ID_RULE = 'letters, digits, ".", "_", ":" and "-", starting with a letter or digit, at most 128 characters';

/** `name-00001-of-00003.gguf` (llama.cpp's gguf-split naming, also used for safetensors shards). */
export const SPLIT_PART_PATTERN = /^(.+)-(\d{5})-of-(\d{5})\.[^.]+$/;

/** A stem lowercased, every character outside [a-z0-9._-] replaced by "-"; "model" when nothing is left. */
export function idFromStem(stem: string): string {
  const id = stem
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 128)
    .replace(/[-._]+$/, '');
  return MODEL_ID_PATTERN.test(id) ? id : 'model';
}
