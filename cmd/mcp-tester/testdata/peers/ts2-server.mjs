// A server on the TypeScript SDK v2 (@modelcontextprotocol/server), which
// speaks 2026-07-28 and serves 2025-11-25 clients through its legacy shim.
// It asks in every way that SDK allows: a form, several questions in one
// round, a URL, a -32042 error (2025-11-25 only), a prompt and a resource
// that ask, and a tool whose argument travels in an Mcp-Param-* header.
//
//   node ts2-server.mjs                 stdio
//   node ts2-server.mjs --http FILE     HTTP on a free loopback port (the URL goes to FILE):
//                                       2026-07-28 stateless, 2025-11-25 in sessions
//   ... --legacy stateless              2025-11-25 served per request (the SDK's default)
//   ... --legacy reject                 2026-07-28 only
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readJSON } from './http-common.mjs';
import {
    McpServer,
    acceptedContent,
    createMcpHandler,
    inputRequired,
    inputResponse,
    isInitializeRequest,
    isLegacyRequest,
    UrlElicitationRequiredError
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

const text = (t) => ({ content: [{ type: 'text', text: t }] });

const confirmSchema = {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Confirm' } },
    required: ['confirm']
};

function describe(view) {
    if (view.kind !== 'elicit') return view.kind;
    return view.content === undefined ? view.action : `${view.action} ${JSON.stringify(view.content)}`;
}

// Whether the account is linked: set by a -32042 error, used by the retry,
// which over HTTP is served by another instance.
let linked = false;

function build({ era } = {}) {
    const server = new McpServer({ name: 'ts2-peer', version: '2.4.0' });

    // One form question.
    server.registerTool(
        'confirm',
        { description: 'Asks for a confirmation before it acts.', inputSchema: z.object({ env: z.string() }) },
        async ({ env }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
            if (view.kind === 'missing') {
                return inputRequired({
                    inputRequests: {
                        confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmSchema })
                    }
                });
            }
            return text(`confirm: ${describe(view)}`);
        }
    );

    // Two questions in one round, written region first; their keys sort
    // the other way.
    server.registerTool(
        'provision',
        { description: 'Asks for a region and a name at once.', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const region = inputResponse(ctx.mcpReq.inputResponses, 'region');
            const name = inputResponse(ctx.mcpReq.inputResponses, 'name');
            if (region.kind === 'missing' || name.kind === 'missing') {
                return inputRequired({
                    inputRequests: {
                        region: inputRequired.elicit({
                            message: 'Which region?',
                            requestedSchema: {
                                type: 'object',
                                properties: { region: { type: 'string', enum: ['eu', 'us'] } },
                                required: ['region']
                            }
                        }),
                        name: inputRequired.elicit({
                            message: 'Database name?',
                            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
                        })
                    }
                });
            }
            return text(`region: ${describe(region)}; name: ${describe(name)}`);
        }
    );

    // A URL question.
    server.registerTool(
        'signin',
        { description: 'Sends the user to a sign-in page.', inputSchema: z.object({}) },
        async (_args, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'signin');
            if (view.kind === 'missing') {
                return inputRequired({
                    inputRequests: {
                        signin: inputRequired.elicitUrl({
                            message: 'Sign in to the example service',
                            url: 'https://auth.example.com/signin?flow=ts2',
                            elicitationId: 'ts2-signin'
                        })
                    }
                });
            }
            return text(`signin: ${describe(view)}`);
        }
    );

    // The 2025-11-25 way to send a user to a URL: a -32042 error. The SDK
    // refuses it on 2026-07-28, where the tool asks in-band instead.
    server.registerTool(
        'link',
        { description: 'Needs an account link before it answers.', inputSchema: z.object({}) },
        async (_args, ctx) => {
            if (era === 'modern') {
                const view = inputResponse(ctx.mcpReq.inputResponses, 'link');
                if (view.kind === 'missing') {
                    return inputRequired({
                        inputRequests: {
                            link: inputRequired.elicitUrl({
                                message: 'Link your account',
                                url: 'https://auth.example.com/link?flow=ts2',
                                elicitationId: 'ts2-link'
                            })
                        }
                    });
                }
                return text(`link: ${describe(view)}`);
            }
            if (!linked) {
                linked = true;
                throw new UrlElicitationRequiredError([
                    { mode: 'url', message: 'Link your account', url: 'https://auth.example.com/link?flow=ts2', elicitationId: 'ts2-link' }
                ]);
            }
            linked = false;
            return text('link: linked');
        }
    );

    // A tool whose region argument must also travel as Mcp-Param-Region.
    server.registerTool(
        'headered',
        {
            description: 'Routes on its region argument, which clients send as a header too.',
            inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), size: z.number().optional() })
        },
        async ({ region }) => text(`headered: ${region}`)
    );

    server.registerPrompt('greeting', { description: 'Asks for a name, then greets.' }, async (ctx) => {
        const who = acceptedContent(ctx.mcpReq.inputResponses, 'who');
        if (who !== undefined) {
            return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who.name}!` } }] };
        }
        const view = inputResponse(ctx.mcpReq.inputResponses, 'who');
        if (view.kind !== 'missing') {
            return { messages: [{ role: 'user', content: { type: 'text', text: `greeting: ${describe(view)}` } }] };
        }
        return inputRequired({
            inputRequests: {
                who: inputRequired.elicit({
                    message: 'Whom shall I greet?',
                    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
                })
            }
        });
    });

    server.registerResource('vault', 'peer://vault', { description: 'Asks for a confirmation, then reads.' }, async (uri, ctx) => {
        const view = inputResponse(ctx.mcpReq.inputResponses, 'unlock');
        if (view.kind === 'missing') {
            return inputRequired({
                inputRequests: { unlock: inputRequired.elicit({ message: 'Unlock the vault?', requestedSchema: confirmSchema }) }
            });
        }
        return { contents: [{ uri: uri.href, text: `vault: ${describe(view)}` }] };
    });
    return server;
}

// serveHTTP serves 2026-07-28 requests statelessly and, by default,
// 2025-11-25 clients in sessions of their own, so that questions reach them
// as elicitation/create (the routing the SDK's docs give for both eras on
// one endpoint).
function serveHTTP(addrFile, legacy) {
    const modern = toNodeHandler(createMcpHandler((ctx) => build(ctx), { legacy: legacy === 'reject' ? 'reject' : 'stateless' }));
    const sessions = new Map();
    const legacyLeg = async (req, res, body) => {
        const sid = req.headers['mcp-session-id'];
        if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res, body);
        if (!sid && isInitializeRequest(body)) {
            const transport = new NodeStreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: (id) => sessions.set(id, transport)
            });
            transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
            await build({ era: 'legacy' }).connect(transport);
            return transport.handleRequest(req, res, body);
        }
        res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: sid ? 'Session not found' : 'Session ID required' }, id: null }));
    };
    const srv = createServer(async (req, res) => {
        try {
            if (legacy !== 'sessions') return void modern(req, res);
            if (req.method === 'POST') {
                const body = await readJSON(req);
                if (await isLegacyRequest(await toWebRequest(req, body), body)) return void (await legacyLeg(req, res, body));
                return void modern(req, res, body);
            }
            if (req.headers['mcp-session-id']) return void (await legacyLeg(req, res, undefined));
            return void modern(req, res);
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
    serveStdio((ctx) => build(ctx));
} else {
    const legacyAt = args.indexOf('--legacy');
    serveHTTP(args[httpAt + 1], legacyAt < 0 ? 'sessions' : args[legacyAt + 1]);
}
