// A client on the TypeScript SDK v2 (@modelcontextprotocol/client). --era
// legacy (the SDK's default) speaks 2025-11-25 with initialize; auto probes
// with server/discover and falls back; modern pins 2026-07-28. See
// client-common.mjs for the command line.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { answerer, main, usage } from './client-common.mjs';

const modes = { legacy: 'legacy', auto: 'auto', modern: { pin: '2026-07-28' } };

await main(async (o) => {
    if (!(o.era in modes)) usage(`--era ${o.era}: use legacy, auto or modern`);
    const client = new Client(
        { name: 'ts2-peer-client', version: '2.4.0' },
        {
            capabilities: o.elicitation ? { elicitation: { form: {}, url: {} } } : {},
            versionNegotiation: { mode: modes[o.era] }
        }
    );
    if (o.elicitation) client.setRequestHandler('elicitation/create', answerer(o.answers));
    const transport = o.url
        ? new StreamableHTTPClientTransport(new URL(o.url))
        : new StdioClientTransport({ command: o.command[0], args: o.command.slice(1), env: process.env });
    await client.connect(transport);
    console.log(`era: ${client.getProtocolEra()}`);
    return client;
}, process.argv.slice(2));
