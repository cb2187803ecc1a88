// Enabled slots start with the gateway (SPEC.md, [slot].enabled = "Start this slot at
// startup"). A test about what a request does to a stopped slot first lets that start end,
// then unloads the slot: it is cold, and the gateway's boot starts have passed it by (they
// go once, in name order).
import { eventually } from './faults.js';
import { api, type Gateway } from './gateway.js';

/** Wait until the boot start of `name` has ended (ready, or failed or refused: last_error set), then unload it. */
export async function coldSlot(gw: Gateway, name: string): Promise<void> {
  let last: { state?: string; last_error?: unknown } = {};
  const started = await eventually(async () => {
    last = (await api(gw.url, `/api/slots/${name}`)).json;
    return last.state === 'ready' || ((last.state === 'stopped' || last.state === 'error') && Boolean(last.last_error));
  }, 600, 100);
  if (!started) throw new Error(`slot ${name}: its start with the gateway did not end; last view: ${JSON.stringify(last)}`);
  const unloaded = await api(gw.url, `/api/slots/${name}/unload`, { method: 'POST' });
  if (unloaded.status !== 200) throw new Error(`slot ${name}: unload answered ${unloaded.status}: ${unloaded.text}`);
}
