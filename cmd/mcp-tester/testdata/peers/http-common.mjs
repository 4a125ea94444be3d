// What the peer servers that route HTTP requests themselves share.

// readJSON reads a request body (at most 1 MiB) and parses it; an empty
// body is undefined.
export async function readJSON(req) {
    const chunks = [];
    let size = 0;
    for await (const c of req) {
        size += c.length;
        if (size > 1 << 20) throw new Error('body too large');
        chunks.push(c);
    }
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}
