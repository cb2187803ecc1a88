// The browser rules (auth/browser-policy.ts) of a running configuration, compiled once per
// configuration: the admission check asks for them on every request.
import { type BrowserRules, compileBrowserRules } from '../auth/browser-policy.js';
import type { ResolvedConfig } from '../config/load.js';

const compiled = new WeakMap<ResolvedConfig, BrowserRules>();

export function browserRulesOf(config: ResolvedConfig): BrowserRules {
  let rules = compiled.get(config);
  if (!rules) {
    const { public_hostnames, allowed_origins } = config.svc.api;
    rules = compileBrowserRules(public_hostnames, allowed_origins, config.env.authEnabled ? config.env.hostname : undefined);
    compiled.set(config, rules);
  }
  return rules;
}
