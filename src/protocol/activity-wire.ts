// GET /api/activity (docs/api.md): one page of the activity log. Row fields keep their
// snake_case column names because rows go out on the wire as they are stored.
export interface ActivityRow {
  id: number;
  ts: string;
  kind: string;
  action: string;
  target: string;
  actor: string;
  outcome: string;
  message: string;
  details: Record<string, unknown>;
  request_id: string | null;
}

export interface ActivityPage {
  items: ActivityRow[];
  /** Pass back as `cursor` (with the same filters) for the next, older page; null on the last. */
  next_cursor: string | null;
}
