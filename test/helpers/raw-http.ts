// One HTTP request with exactly the headers given (fetch adds Sec-Fetch-Mode, forbids Host
// and fills in others): what the browser-facing tests need to send what a browser sends; and
// bytes on a socket as they are, for what no HTTP client would send.
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Tests read arbitrary response shapes; `any` keeps their assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export function rawRequest(base: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const target = new URL(path, base);
  const headers: Record<string, string> = { ...init.headers };
  // node:http frames a DELETE's body with neither Content-Length nor chunks: say its length.
  if (init.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) headers['content-length'] = String(Buffer.byteLength(init.body));
  const hasHost = Object.keys(headers).some((name) => name.toLowerCase() === 'host');
  return new Promise((done, fail) => {
    const req = request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: init.method ?? 'GET', headers, setHost: !hasHost }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', fail);
    req.end(init.body);
  });
}

/** A concrete path for an access-table route pattern. */
export const concretePath = (pattern: string) =>
  pattern.replace(':name', pattern.includes('images') ? 'nope.png' : 'nope').replace(':ref', 'nope').replace(':id', 'deadbeef').replace(':slug', 'nope').replace('*', 'nope');

export interface WireAnswer extends RawAnswer {
  /** Every byte the server wrote, status line and headers included. */
  wire: string;
  /** Whether the server closed the connection after its answer. */
  closed: boolean;
}

/**
 * Bytes written to a new connection exactly as given (a malformed request, or what curl
 * sends), and the one answer read back: complete once its Content-Length (or last chunk)
 * arrived, or when the server closes. `thenClose` closes the connection once the bytes are
 * written, as a client that gives up mid-body does.
 */
export function wireRequest(port: number, bytes: string | Buffer, options: { thenClose?: boolean } = {}): Promise<WireAnswer> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes, () => {
        if (options.thenClose) socket.destroy();
      });
    });
    let wire = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      done({ ...parseAnswer(wire.toString('latin1')), wire: wire.toString('latin1'), closed });
    };
    socket.on('data', (chunk: Buffer) => {
      wire = Buffer.concat([wire, chunk]);
      if (answerComplete(wire.toString('latin1'))) setImmediate(() => finish(socket.readableEnded));
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error) => (wire.length > 0 ? finish(true) : fail(error)));
  });
}

function answerComplete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  if (length) return Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
  return /\r\ntransfer-encoding: *chunked/i.test(text.slice(0, end)) && text.endsWith('0\r\n\r\n');
}

function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = end < 0 ? '' : text.slice(end + 4);
  const body = Buffer.from(/chunked/i.test(headers['transfer-encoding'] ?? '') ? unchunk(raw) : raw, 'latin1').toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, text: body, json };
}

function unchunk(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const line = body.indexOf('\r\n', at);
    const size = line < 0 ? 0 : parseInt(body.slice(at, line), 16);
    if (!size) return out;
    out += body.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}
