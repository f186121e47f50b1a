// The benchmark's embedding server, in a process of its own so that its work is not the indexer's:
// POST /v1/embeddings answers hashed bag-of-words vectors (test/support/embeddings.ts) of
// LEMBAS_BENCH_DIM dimensions. Prints its port on stdout once it listens.
import { bagOfWords } from "../test/support/embeddings.ts";

const dimension = Number(process.env.LEMBAS_BENCH_DIM ?? 384);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as { input: string[] };
    const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text, dimension) }));
    return Response.json({ object: "list", data });
  },
});
console.log(server.port);
