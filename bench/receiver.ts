// A webhook receiver for bench:webhooks, in its own process: answers 200 and counts what it got.
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    if (req.method === "GET") return new Response(String(received));
    await req.arrayBuffer();
    received++;
    return new Response("ok");
  },
});
let received = 0;
console.log(server.port);
