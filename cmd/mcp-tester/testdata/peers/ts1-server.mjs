// A server on the TypeScript SDK v1 (@modelcontextprotocol/sdk), which
// speaks 2025-11-25: it asks with elicitation/create, on the standalone
// stream (server.elicitInput) or on the request's own stream
// (extra.sendRequest), and sends users to URLs in a question or with a
// -32042 error. Over HTTP every client gets a session of its own.
//
//   node ts1-server.mjs                 stdio
//   node ts1-server.mjs --http FILE     HTTP on a free loopback port; the URL goes to FILE
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readJSON } from './http-common.mjs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema, UrlElicitationRequiredError, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const describe = (r) => (r.content === undefined ? r.action : `${r.action} ${JSON.stringify(r.content)}`);
const confirmSchema = {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Confirm' } },
    required: ['confirm']
};

// Whether the account is linked: set by a -32042 error, used by the retry.
let linked = false;

function build() {
    const server = new McpServer({ name: 'ts1-peer', version: '1.32.2' });

    // One form question, on the standalone stream.
    server.registerTool(
        'confirm',
        { description: 'Asks for a confirmation before it acts.', inputSchema: { env: z.string() } },
        async ({ env }) => {
            const r = await server.server.elicitInput({ mode: 'form', message: `Deploy to ${env}?`, requestedSchema: confirmSchema });
            return text(`confirm: ${describe(r)}`);
        }
    );

    // One form question, on the stream of the request it belongs to.
    server.registerTool(
        'confirm_related',
        { description: 'Asks on the request stream before it acts.', inputSchema: { env: z.string() } },
        async ({ env }, extra) => {
            const r = await extra.sendRequest(
                { method: 'elicitation/create', params: { mode: 'form', message: `Deploy to ${env}?`, requestedSchema: confirmSchema } },
                ElicitResultSchema
            );
            return text(`confirm: ${describe(r)}`);
        }
    );

    // Two questions at once: region is sent first, then name.
    server.registerTool('provision', { description: 'Asks for a region and a name at once.' }, async () => {
        const [region, name] = await Promise.all([
            server.server.elicitInput({
                mode: 'form',
                message: 'Which region?',
                requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } }, required: ['region'] }
            }),
            server.server.elicitInput({
                mode: 'form',
                message: 'Database name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
            })
        ]);
        return text(`region: ${describe(region)}; name: ${describe(name)}`);
    });

    // A URL question.
    server.registerTool('signin', { description: 'Sends the user to a sign-in page.' }, async () => {
        const r = await server.server.elicitInput({
            mode: 'url',
            message: 'Sign in to the example service',
            url: 'https://auth.example.com/signin?flow=ts1',
            elicitationId: 'ts1-signin'
        });
        return text(`signin: ${describe(r)}`);
    });

    // The -32042 error: the call fails until the account is linked.
    server.registerTool('link', { description: 'Needs an account link before it answers.' }, async () => {
        if (!linked) {
            linked = true;
            throw new UrlElicitationRequiredError([
                { mode: 'url', message: 'Link your account', url: 'https://auth.example.com/link?flow=ts1', elicitationId: 'ts1-link' }
            ]);
        }
        linked = false;
        return text('link: linked');
    });

    server.registerPrompt('greeting', { description: 'Asks for a name, then greets.' }, async () => {
        const r = await server.server.elicitInput({
            mode: 'form',
            message: 'Whom shall I greet?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
        });
        const t = r.action === 'accept' ? `Hello, ${r.content.name}!` : `greeting: ${describe(r)}`;
        return { messages: [{ role: 'user', content: { type: 'text', text: t } }] };
    });

    server.registerResource('vault', 'peer://vault', { description: 'Asks for a confirmation, then reads.' }, async (uri) => {
        const r = await server.server.elicitInput({ mode: 'form', message: 'Unlock the vault?', requestedSchema: confirmSchema });
        return { contents: [{ uri: uri.href, text: `vault: ${describe(r)}` }] };
    });
    return server;
}

function serveHTTP(addrFile) {
    const sessions = new Map();
    const srv = createServer(async (req, res) => {
        try {
            const body = req.method === 'POST' ? await readJSON(req) : undefined;
            const sid = req.headers['mcp-session-id'];
            if (sid && sessions.has(sid)) return void (await sessions.get(sid).handleRequest(req, res, body));
            if (!sid && req.method === 'POST' && isInitializeRequest(body)) {
                const transport = new StreamableHTTPServerTransport({
                    sessionIdGenerator: () => randomUUID(),
                    onsessioninitialized: (id) => sessions.set(id, transport)
                });
                transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
                await build().connect(transport);
                return void (await transport.handleRequest(req, res, body));
            }
            res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: sid ? 'Session not found' : 'Bad Request: no valid session' }, id: null }));
        } catch (err) {
            if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
            res.end(String(err));
        }
    });
    srv.listen(0, '127.0.0.1', () => writeFileSync(addrFile, `http://127.0.0.1:${srv.address().port}/mcp\n`));
}

const args = process.argv.slice(2);
const httpAt = args.indexOf('--http');
if (httpAt < 0) {
    await build().connect(new StdioServerTransport());
} else {
    serveHTTP(args[httpAt + 1]);
}
