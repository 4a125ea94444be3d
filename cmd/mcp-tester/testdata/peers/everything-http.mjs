// The reference server @modelcontextprotocol/server-everything over HTTP, on
// a free loopback port: its own Streamable HTTP transport (sessions, an
// event store for resumability) or its HTTP+SSE transport (2024-11-05).
//
//   node everything-http.mjs streamableHttp FILE    the URL (…/mcp) goes to FILE
//   node everything-http.mjs sse FILE               the URL (…/sse) goes to FILE
//
// The server listens on PORT (default 3001) on every interface; this
// wrapper makes it listen on a free port on 127.0.0.1 and says which.
import net from 'node:net';
import { writeFileSync } from 'node:fs';

const [mode, file] = process.argv.slice(2);
if (mode !== 'streamableHttp' && mode !== 'sse') throw new Error(`usage: everything-http.mjs streamableHttp|sse FILE`);
const path = mode === 'sse' ? '/sse' : '/mcp';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
    this.once('listening', () => writeFileSync(file, `http://127.0.0.1:${this.address().port}${path}\n`));
    const cb = rest.find((a) => typeof a === 'function');
    return listen.call(this, 0, '127.0.0.1', cb);
};
await import(new URL(`./node_modules/@modelcontextprotocol/server-everything/dist/transports/${mode}.js`, import.meta.url));
