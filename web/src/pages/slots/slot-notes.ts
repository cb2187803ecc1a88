// What a form learned that its next page should say once (a created slot's warnings, an
// edit's "restart to apply"): the form navigates to the detail, which takes the note.
const notes = new Map<string, string[]>();

export function leaveNote(slot: string, lines: string[]): void {
  if (lines.length > 0) notes.set(slot, lines);
}

/** The note left for `slot`, removed as it is read. */
export function takeNote(slot: string): string[] {
  const lines = notes.get(slot) ?? [];
  notes.delete(slot);
  return lines;
}
