// The baseline of the HTTP figures: a bare node:http server that reads the request body and
// answers a fixed JSON body whose byte length is the real server's for the same request.
// Plain JavaScript (no tsx, no TypeScript build) so that its start-up is node's own.
//
//   BARE_BODIES='{"/generate/1":312,"/generate/20":4861}' PORT=0 HOST=127.0.0.1 node bench/bare-server.mjs
//
// Any other path (GET /health too) gets the smallest body. Prints the same one listening line
// as server.ts, with the URL, and exits 0 on SIGTERM/SIGINT.
import { createServer } from 'node:http';
import { serve } from './listening.mjs';

/** A JSON object of exactly `bytes` bytes: {"fixed":"xxxx..."}. */
function fixedJson(bytes) {
  const overhead = JSON.stringify({ fixed: '' }).length;
  return Buffer.from(JSON.stringify({ fixed: 'x'.repeat(Math.max(0, bytes - overhead)) }));
}

const sizes = JSON.parse(process.env.BARE_BODIES ?? '{}');
const bodies = new Map(Object.entries(sizes).map(([path, bytes]) => [path, fixedJson(Number(bytes))]));
const fallback = fixedJson(Math.min(15, ...Object.values(sizes).map(Number)));

const server = createServer((req, res) => {
  const body = bodies.get(req.url) ?? fallback;
  const reply = () => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  };
  req.on('data', () => {});
  req.on('end', reply);
});

serve(server);
