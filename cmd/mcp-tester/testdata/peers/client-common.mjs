// What the peer clients share: their command line, the scripted answers and
// the output the interop transcripts read.
//
//   node ts2-client.mjs RUN [--then RUN]...
//   RUN: (--url URL | --command 'CMD ARG...') [--era legacy|auto|modern]
//        [--answer accept|decline|cancel|accept:{json}|exit]... [--no-elicitation]
//        (call TOOL [JSON] | prompt NAME | read URI | tools)
//
// Each run is a client of its own, with a connection (and so a session, or a
// server process started for it) of its own, as a separate start of the
// peer would be; the runs go one after the other, in one Node, since
// loading the SDK costs more processor time than most runs (about 0.3 s of
// 0.45). Each question prints as "asked: MESSAGE", the result's text as
// "result: TEXT", an error as "error: MESSAGE" (the next run still goes;
// the exit status is then 1). Questions beyond the answers given are
// declined; the answer "exit" leaves mid-question (exit 4, its connections
// dropped, no later run). Each run ends within 20 seconds.

export function parseArgs(argv) {
    const o = { answers: [], era: 'legacy', elicitation: true, rest: [] };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--url') o.url = argv[++i];
        else if (a === '--command') o.command = argv[++i].split(' ');
        else if (a === '--era') o.era = argv[++i];
        else if (a === '--answer') o.answers.push(argv[++i]);
        else if (a === '--no-elicitation') o.elicitation = false;
        else o.rest.push(a);
    }
    if (!o.url === !o.command) usage('give --url or --command');
    return o;
}

export function usage(msg) {
    process.stderr.write(`peer client: ${msg}\n`);
    process.exit(2);
}

// answerer returns the handler of questions: it prints each and gives the
// next scripted answer.
export function answerer(answers) {
    return async (request) => {
        const p = request.params;
        console.log(`asked: ${p.message}${p.mode === 'url' ? ` <${p.url}>` : ''}`);
        const spec = answers.shift() ?? 'decline';
        if (spec === 'exit') {
            console.log('left mid-question');
            process.exit(4);
        }
        if (spec.startsWith('accept:')) return { action: 'accept', content: JSON.parse(spec.slice('accept:'.length)) };
        if (p.mode !== 'url' && spec === 'accept') return { action: 'accept', content: {} };
        return { action: spec };
    };
}

function texts(content) {
    return (content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

// act runs the command of the rest of the arguments and prints its result.
export async function act(client, rest) {
    const [verb, name, json] = rest;
    switch (verb) {
        case 'call': {
            const res = await client.callTool({ name, arguments: json ? JSON.parse(json) : {} });
            console.log(`result: ${texts(res.content)}${res.isError ? ' (isError)' : ''}`);
            return;
        }
        case 'prompt': {
            const res = await client.getPrompt({ name, arguments: json ? JSON.parse(json) : {} });
            console.log(`result: ${res.messages.map((m) => texts([m.content])).join('\n')}`);
            return;
        }
        case 'read': {
            const res = await client.readResource({ uri: name });
            console.log(`result: ${res.contents.map((c) => c.text ?? '[blob]').join('\n')}`);
            return;
        }
        case 'tools': {
            const res = await client.listTools();
            console.log(`result: ${res.tools.map((t) => t.name).join(' ')}`);
            return;
        }
        default:
            usage(`unknown command ${verb ?? '(none)'}: use call, prompt, read or tools`);
    }
}

// runs splits argv into the runs --then separates.
export function runs(argv) {
    const out = [[]];
    for (const a of argv) {
        if (a === '--then') out.push([]);
        else out[out.length - 1].push(a);
    }
    return out;
}

// main runs each run of argv in turn (each connects, acts and prints,
// within a time limit), then exits.
export async function main(connect, argv) {
    const all = runs(argv).map(parseArgs);
    for (const o of all) {
        await runOnce(connect, o);
    }
    process.exit(process.exitCode ?? 0);
}

async function runOnce(connect, o) {
    const timer = setTimeout(() => {
        console.log('error: no result within 20s');
        process.exit(1);
    }, 20000);
    let client;
    try {
        client = await connect(o);
        await act(client, o.rest);
    } catch (err) {
        console.log(`error: ${err?.message ?? err}`);
        process.exitCode = 1;
    } finally {
        clearTimeout(timer);
        await client?.close().catch(() => {});
    }
}
