// The Tool servers page: /tools (the approvals waiting, the installed servers live, install
// from a spec, a URL or the catalog, and the tool calls as they happen) and /tools/<id> (one
// server: its actions, test, tools with their policy, logs).
import { useSubPath } from '../../router.js';
import { useToolServerEvents } from './queries.js';
import { ServerList } from './server-list.js';
import { ServerDetail } from './server-detail.js';
import './tools.css';

export default function ToolServersPage() {
  useToolServerEvents();
  const [id] = useSubPath('/tools');
  return id === undefined ? <ServerList /> : <ServerDetail id={id} />;
}
