// `svc capabilities migrate`: bring capabilities.toml in line with the registry. A selection
// whose model left the registry is cleared (model = null, enabled = false); one whose
// provider cannot run its model (the registry entry's `backends` does not list it) is
// snapped to the model's first backend. Pure over the parsed files, so a second run finds
// nothing to do; the caller writes the changed document.
import { PROVIDERS } from '../protocol/vocabulary.js';
import type { CapabilitiesFile } from './schema/capabilities.js';
import type { RegistryFile } from './schema/registry.js';
import type { TomlDoc } from './toml.js';
import { own } from '../lib/own.js';

export interface CapabilityChange {
  readonly capability: string;
  readonly slot: string;
  readonly model: string | null;
  readonly key: 'model' | 'provider';
  readonly before: string | null;
  readonly after: string | null;
  readonly reason: string;
}

/** `slotModel(slot)`: the slot's [model].default, the model a selection without one means. */
export function planCapabilitiesMigration(file: CapabilitiesFile, registry: RegistryFile, slotModel: (slot: string) => string | null): CapabilityChange[] {
  const changes: CapabilityChange[] = [];
  for (const [capability, selection] of Object.entries(file.capabilities).sort(([a], [b]) => a.localeCompare(b))) {
    if (!selection) continue;
    if (selection.model !== null && !Object.hasOwn(registry.models, selection.model)) {
      changes.push({ capability, slot: selection.slot, model: selection.model, key: 'model', before: selection.model, after: null, reason: 'the model is no longer in the registry: cleared and disabled' });
      continue;
    }
    const model = selection.model ?? slotModel(selection.slot);
    // Only backends that are providers can be snapped to (the file must stay valid).
    const backends = (model ? (own(registry.models, model)?.backends ?? []) : []).filter((b) => (PROVIDERS as readonly string[]).includes(b));
    if (selection.provider !== null && backends.length > 0 && !backends.includes(selection.provider)) {
      changes.push({ capability, slot: selection.slot, model, key: 'provider', before: selection.provider, after: backends[0]!, reason: `${model} runs on ${backends.join(', ')}: snapped to its first backend` });
    }
  }
  return changes;
}

/** The changes applied to the raw document (other keys and their order kept). */
export function applyCapabilityChanges(doc: TomlDoc, changes: readonly CapabilityChange[]): TomlDoc {
  const capabilities = { ...((doc.capabilities as TomlDoc | undefined) ?? {}) };
  for (const change of changes) {
    const selection = { ...((capabilities[change.capability] as TomlDoc | undefined) ?? {}) };
    if (change.key === 'model') {
      delete selection.model;
      selection.enabled = false;
    } else {
      selection.provider = change.after;
    }
    capabilities[change.capability] = selection;
  }
  return { ...doc, capabilities };
}
