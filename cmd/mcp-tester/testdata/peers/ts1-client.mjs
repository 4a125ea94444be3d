// A client on the TypeScript SDK v1 (@modelcontextprotocol/sdk), which
// speaks 2025-11-25. See client-common.mjs for the command line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerer, main, usage } from './client-common.mjs';

await main(async (o) => {
    if (o.era !== 'legacy') usage(`--era ${o.era}: this SDK speaks 2025-11-25 only`);
    const client = new Client(
        { name: 'ts1-peer-client', version: '1.32.2' },
        { capabilities: o.elicitation ? { elicitation: { form: {}, url: {} } } : {} }
    );
    if (o.elicitation) client.setRequestHandler(ElicitRequestSchema, answerer(o.answers));
    const transport = o.url
        ? new StreamableHTTPClientTransport(new URL(o.url))
        : new StdioClientTransport({ command: o.command[0], args: o.command.slice(1), env: process.env });
    await client.connect(transport);
    console.log('era: legacy');
    return client;
}, process.argv.slice(2));
