/** Awaits a request that must fail, and gives its JSON-RPC error (code and message). */
export async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error("expected a JSON-RPC error");
}
