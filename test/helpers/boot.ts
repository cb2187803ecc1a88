// Enabled slots start with the gateway ([slot].enabled = "Start this slot at
// startup"). A test about what a request does to a stopped slot first lets that start end,
// then unloads the slot: it is cold, and the gateway's boot starts have passed it by (they
// go once, in name order).
import { api, type Gateway } from './gateway.js';
import { waitFor } from './wait.js';

/** Wait until the boot start of `name` has ended (ready, or failed or refused: last_error set), then unload it. */
export async function coldSlot(gw: Gateway, name: string): Promise<void> {
  const view = async () => (await api(gw.url, `/api/slots/${name}`)).json as { state?: string; last_error?: unknown };
  await waitFor(view, { what: `the start of slot ${name} with the gateway to end`, until: (v) => v.state === 'ready' || ((v.state === 'stopped' || v.state === 'error') && Boolean(v.last_error)), timeout: 60_000, interval: 100 });
  const unloaded = await api(gw.url, `/api/slots/${name}/unload`, { method: 'POST' });
  if (unloaded.status !== 200) throw new Error(`slot ${name}: unload answered ${unloaded.status}: ${unloaded.text}`);
}
