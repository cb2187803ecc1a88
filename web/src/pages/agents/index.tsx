// The Agents page: /agents (installed agents, the ones svc can install, installs with their
// progress live) and /agents/<name> (one agent: upgrade, uninstall, activity, log and, for
// hermes, its provisioning phases and personas). Live from the agent.* events.
import { useSubPath, useTitle } from '../../router.js';
import { AgentDetail } from './agent-detail.js';
import { AgentList } from './agent-list.js';
import { useAgentEvents } from './queries.js';
import './agents.css';

export default function AgentsPage() {
  useAgentEvents();
  const [name] = useSubPath('/agents');
  useTitle(name === undefined ? 'Agents' : `Agent ${name}`);
  return (
    <section className="page agents-page">
      {name === undefined && <h1>Agents</h1>}
      {name === undefined ? <AgentList /> : <AgentDetail name={name} />}
    </section>
  );
}
