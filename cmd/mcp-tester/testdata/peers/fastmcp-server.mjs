// A server on FastMCP (the npm fastmcp package, on the TypeScript SDK v1),
// which speaks 2025-11-25 and asks with elicitation/create on the
// standalone stream: a form, several questions at once, a URL, and a prompt
// and a resource that ask. FastMCP turns every error a tool throws into an
// isError result, so it cannot send a -32042 error.
//
//   node fastmcp-server.mjs                 stdio
//   node fastmcp-server.mjs --http FILE     HTTP on a free loopback port; the URL goes to FILE
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { FastMCP } from 'fastmcp';
import * as z from 'zod/v4';

const describe = (r) => (r.content === undefined ? r.action : `${r.action} ${JSON.stringify(r.content)}`);
const confirmSchema = {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Confirm' } },
    required: ['confirm']
};

const server = new FastMCP({ name: 'fastmcp-peer', version: '4.20.16' });

server.addTool({
    name: 'confirm',
    description: 'Asks for a confirmation before it acts.',
    parameters: z.object({ env: z.string() }),
    execute: async ({ env }, ctx) => {
        const r = await ctx.elicit({ mode: 'form', message: `Deploy to ${env}?`, requestedSchema: confirmSchema });
        return `confirm: ${describe(r)}`;
    }
});

// Two questions at once: region is sent first, then name.
server.addTool({
    name: 'provision',
    description: 'Asks for a region and a name at once.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
        const [region, name] = await Promise.all([
            ctx.elicit({
                mode: 'form',
                message: 'Which region?',
                requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } }, required: ['region'] }
            }),
            ctx.elicit({
                mode: 'form',
                message: 'Database name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
            })
        ]);
        return `region: ${describe(region)}; name: ${describe(name)}`;
    }
});

server.addTool({
    name: 'signin',
    description: 'Sends the user to a sign-in page.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
        const r = await ctx.elicit({
            mode: 'url',
            message: 'Sign in to the example service',
            url: 'https://auth.example.com/signin?flow=fastmcp',
            elicitationId: 'fastmcp-signin'
        });
        return `signin: ${describe(r)}`;
    }
});

server.addPrompt({
    name: 'greeting',
    description: 'Asks for a name, then greets.',
    load: async (_args, _auth, ctx) => {
        const r = await ctx.elicit({
            mode: 'form',
            message: 'Whom shall I greet?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
        });
        return r.action === 'accept' ? `Hello, ${r.content.name}!` : `greeting: ${describe(r)}`;
    }
});

server.addResource({
    uri: 'peer://vault',
    name: 'vault',
    description: 'Asks for a confirmation, then reads.',
    mimeType: 'text/plain',
    load: async (_auth, ctx) => {
        const r = await ctx.elicit({ mode: 'form', message: 'Unlock the vault?', requestedSchema: confirmSchema });
        return { text: `vault: ${describe(r)}` };
    }
});

// freePort asks the system for a free loopback port: FastMCP wants a number.
function freePort() {
    return new Promise((resolve, reject) => {
        const s = createServer();
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

const args = process.argv.slice(2);
const httpAt = args.indexOf('--http');
if (httpAt < 0) {
    await server.start({ transportType: 'stdio' });
} else {
    const port = await freePort();
    await server.start({ transportType: 'httpStream', httpStream: { host: '127.0.0.1', port, endpoint: '/mcp' } });
    writeFileSync(args[httpAt + 1], `http://127.0.0.1:${port}/mcp\n`);
}
