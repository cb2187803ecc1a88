// One HTTP request with exactly the headers given (fetch adds Sec-Fetch-Mode, forbids Host
// and fills in others): what the browser-facing tests need to send what a browser sends.
import { request } from 'node:http';

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
