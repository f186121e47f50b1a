/**
 * A JSON-RPC error a handler throws to answer its request with: the code, the sentence and any
 * data go out as they are. The same name and statics as the ACP SDK's, whose answers ours match.
 */
export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RequestError";
  }

  static invalidRequest(data?: unknown, more?: string): RequestError {
    return new RequestError(-32600, `Invalid request${more ? `: ${more}` : ""}`, data);
  }

  static methodNotFound(method: string): RequestError {
    return new RequestError(-32601, `"Method not found": ${method}`, { method });
  }

  static invalidParams(data?: unknown, more?: string): RequestError {
    return new RequestError(-32602, `Invalid params${more ? `: ${more}` : ""}`, data);
  }

  static internalError(data?: unknown, more?: string): RequestError {
    return new RequestError(-32603, `Internal error${more ? `: ${more}` : ""}`, data);
  }

  static requestCancelled(data?: unknown): RequestError {
    return new RequestError(-32800, "Request cancelled", data);
  }

  toErrorResponse(): { code: number; message: string; data?: unknown } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Params a check refused, with zod's `format()` tree of what is wrong (answered -32602 "Invalid params"). */
export class ParamsError extends Error {
  constructor(readonly tree: unknown) {
    super("Invalid params");
    this.name = "ParamsError";
  }
}

type ErrorBody = { code: number; message: string; data?: unknown };

/**
 * What a request that failed with `error` is answered: its own code and sentence for a
 * RequestError, -32602 with the tree for refused params (ours or a zod schema's), -32800 for an
 * abort of a cancelled request, and -32603 for anything else (its message as data).
 */
export function errorAnswer(error: unknown, signal?: AbortSignal): ErrorBody {
  if (signal?.aborted && isAbort(error)) {
    const reason: unknown = signal.reason;
    return (reason instanceof RequestError && reason.code === -32800 ? reason : RequestError.requestCancelled(reason)).toErrorResponse();
  }
  if (error instanceof RequestError) return error.toErrorResponse();
  if (error instanceof ParamsError) return RequestError.invalidParams(error.tree).toErrorResponse();
  if (isZodError(error)) return RequestError.invalidParams(error.format()).toErrorResponse();
  const details = error instanceof Error ? error.message : typeof (error as { message?: unknown } | null)?.message === "string" ? (error as { message: string }).message : undefined;
  try {
    return RequestError.internalError(details ? (JSON.parse(details) as unknown) : {}).toErrorResponse();
  } catch {
    return RequestError.internalError({ details }).toErrorResponse();
  }
}

function isZodError(error: unknown): error is { format(): unknown } {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { name?: unknown; issues?: unknown; format?: unknown };
  return e.name === "ZodError" && Array.isArray(e.issues) && typeof e.format === "function";
}

function isAbort(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { name?: unknown; code?: unknown };
  return e.name === "AbortError" || e.code === "ABORT_ERR";
}
