// The skill svc gives pi (pi's docs/skills.md, the Agent Skills format: a SKILL.md with a name
// and a description in its front matter). pi has no MCP by design; it reaches svc through its
// shell tool and the `svc` CLI, which this skill describes.
export const SVC_SKILL = (apiUrl: string) => `---
name: svc
description: Use the svc CLI to inspect and manage the local inference gateway this agent talks to (models, slots, memory). Use it when asked about the models or the gateway.
---

# svc: the local inference gateway

You run on models served by svc, a gateway at ${apiUrl} (its OpenAI-compatible API is
${apiUrl}/v1). The \`svc\` command line client talks to it; set SVC_API_URL=${apiUrl} if
\`svc\` answers that no gateway is reachable.

Read before you change anything; changes are logged in svc's activity log.

| What | Command |
|---|---|
| Gateway state, slots and their models | \`svc status\` |
| Slots (one engine each) | \`svc slot list\`, \`svc slot logs <name>\` |
| Models in the registry | \`svc model list\` |
| A one-off chat with a model | \`svc run <model> "prompt"\` |
| Memory: store and find notes | \`svc memory add "text"\`, \`svc memory search "query"\` |
| Health checks | \`svc doctor\` |

Add \`--json\` to most listing commands for output to parse. Loading, unloading or deleting
slots and models affects every user of the gateway: do it only when asked to.
`;
