// Which slots use a model: those whose [model].default it is (the registry's `used_by`) and
// those running it or about to load it now (GET /api/slots's `model`), each once, by name.
export interface SlotUse {
  slot: string;
  /** Its [model].default names the model. */
  isDefault: boolean;
  /** It runs the model now, or its next start loads it. */
  isCurrent: boolean;
}

export function slotsUsing(model: { id: string; used_by: readonly string[] }, slots: ReadonlyArray<{ name: string; model: string }>): SlotUse[] {
  const names = new Set([...model.used_by, ...slots.filter((s) => s.model === model.id).map((s) => s.name)]);
  return [...names].sort().map((slot) => ({
    slot,
    isDefault: model.used_by.includes(slot),
    isCurrent: slots.some((s) => s.name === slot && s.model === model.id),
  }));
}
