// Baseline of the gateway benchmark: Node's own HTTP server answering every request with a bare
// 204, no check at all: what any forward-auth service in Node costs nginx and the machine, so
// that the service's figures can be read against the floor of its runtime. Prints {port}.
import http from 'node:http';

const server = http.createServer((_req, res) => {
  res.writeHead(204);
  res.end();
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
