// The bare Worker of `npm run bench`:
//   GET  /cache/<name>  answers what caches.default holds for <name> (the floor of a cached public read)
//   PUT  /cache/<name>  stores the body for an hour (the bench stores the API's own documents, same size),
//                       with the headers named in X-Bench-Keep-Headers (the API's own answer headers)
//   POST /echo          reads the body and answers 201 with a small JSON document (the floor of a create)
const entry = (name: string) => new Request(`https://bench.internal/${encodeURIComponent(name)}`);

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = url.pathname.startsWith("/cache/") ? url.pathname.slice("/cache/".length) : null;
    if (name && request.method === "GET") return (await caches.default.match(entry(name))) ?? new Response("not cached", { status: 404 });
    if (name && request.method === "PUT") {
      const kept = (request.headers.get("x-bench-keep-headers") ?? "").split(",").filter(Boolean);
      const headers: Record<string, string> = Object.fromEntries(kept.map((h) => [h, request.headers.get(h) ?? ""]));
      Object.assign(headers, {
        "Content-Type": request.headers.get("content-type") ?? "application/octet-stream",
        "Cache-Control": "public, max-age=3600",
      });
      await caches.default.put(entry(name), new Response(await request.arrayBuffer(), { headers }));
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/echo" && request.method === "POST") {
      const body = await request.text();
      return Response.json({ data: { type: "echo", id: crypto.randomUUID(), attributes: { length: body.length } } }, { status: 201 });
    }
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler;
