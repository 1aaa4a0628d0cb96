// The ingest benchmark's baseline: a bare node:http server that reads a request's body, parses it
// as JSON and answers 201 — what any Node server must do per logged request, with no framework,
// validation or storage. Run in its own process; prints its URL.
import { createServer } from 'node:http';

let id = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ success: true, id: ++id });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`bare node:http on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
