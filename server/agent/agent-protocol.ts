// The agent socket speaks newline-delimited JSON: one request, one response, then the connection closes.
export interface AgentRequest {
  readonly command: string;
  readonly args?: Record<string, unknown>;
}

export type AgentResponse = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: string };
