import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { TypedClientRouter } from '../routers/root.ts';

/** What the service's procedures answer, as the typed client sees them. */
export type Outputs = inferRouterOutputs<TypedClientRouter>;

/** What the service's procedures take, as the typed client sees them. */
export type Inputs = inferRouterInputs<TypedClientRouter>;

/** The signed-in session, as GET /console/api/session answers it. */
export interface Session {
  account: { id: number; name: string; email: string | null };
  api_key: { id: number; name: string; prefix: string };
  csrf_token: string;
  expires_at: string;
}

/** A failure the service answered in its documented shape (`{code, message, status}`). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

let csrf = '';
let onSessionLost: (message: string) => void = () => {};

/** Called when any call finds the session gone (expired, signed out elsewhere, key revoked). */
export function whenSessionLost(listener: (message: string) => void): void {
  onSessionLost = listener;
}

/** Reads an error answer of ours; a session that is gone is reported once to the app. */
async function failure(res: Response): Promise<ApiError> {
  let body: { code?: string; message?: string } = {};
  try {
    body = (await res.clone().json()) as typeof body;
  } catch {
    // not JSON: a proxy's page; the status says enough
  }
  const err = new ApiError(
    body.code ?? `HTTP_${res.status}`,
    body.message ?? `The service answered ${res.status}.`,
    res.status,
  );
  if (err.code === 'ERR_SESSION_INVALID') onSessionLost(err.message);
  return err;
}

/**
 * fetch for the tRPC link: an answer of the facade's own (`{code, message, status}`, from the
 * session gate, before any procedure runs) becomes an ApiError instead of a batch to parse.
 */
const guardedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, { ...init, credentials: 'same-origin' });
  if (!res.ok && (res.headers.get('content-type') ?? '').includes('json')) {
    const body: unknown = await res.clone().json();
    if (body && !Array.isArray(body) && typeof (body as { code?: unknown }).code === 'string') throw await failure(res);
  }
  return res;
};

const csrfHeader = (): Record<string, string> => (csrf ? { 'X-CSRF-Token': csrf } : {});

/**
 * The typed tRPC client: the session cookie authenticates, the CSRF token rides on every call.
 * A call made with {@link confirmedWith} (a change of a credential) goes alone, unbatched,
 * with the API key typed again in X-Confirm-Key.
 */
export const trpc = createTRPCClient<TypedClientRouter>({
  links: [
    splitLink({
      condition: (op) => typeof op.context.confirmKey === 'string',
      true: httpLink({
        url: '/trpc',
        headers: ({ op }) => ({ ...csrfHeader(), 'X-Confirm-Key': op.context.confirmKey as string }),
        fetch: guardedFetch,
      }),
      false: httpBatchLink({ url: '/trpc', headers: csrfHeader, fetch: guardedFetch }),
    }),
  ],
});

/** The options of a call confirmed with `apiKey`, the key typed again (see console/confirm-key.tsx). */
export const confirmedWith = (apiKey: string) => ({ context: { confirmKey: apiKey } });

async function sessionCall(method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<Session | null> {
  const res = await fetch('/console/api/session', {
    method,
    credentials: 'same-origin',
    headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...(csrf ? { 'X-CSRF-Token': csrf } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status === 204) return null;
  if (!res.ok) throw await failure(res);
  const session = ((await res.json()) as { data: Session }).data;
  csrf = session.csrf_token;
  return session;
}

/** Signs in with an API key; ERR_API_KEY_INVALID, ERR_RATE_LIMITED or ERR_VALIDATION otherwise. */
export const signIn = (apiKey: string) => sessionCall('POST', { api_key: apiKey }) as Promise<Session>;

/** The current session, or null when there is none (signed out, expired, key revoked). */
export async function currentSession(): Promise<Session | null> {
  try {
    return await sessionCall('GET');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export async function signOut(): Promise<void> {
  await sessionCall('DELETE');
  csrf = '';
}

/** A sentence for people: the service's message, its field errors, never a stack. */
export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) {
    const cause: unknown = err.cause;
    if (cause instanceof ApiError) return cause.message;
    const data = err.data as { errors?: Record<string, string[]> } | undefined;
    const fields = data?.errors ? Object.values(data.errors).flat() : [];
    if (fields.length) return fields.join(' ');
    return zodIssues(err.message) ?? (err.message || 'The call failed.');
  }
  if (err instanceof ApiError) return err.message;
  if (err instanceof TypeError) return 'The service could not be reached; check your connection.';
  return 'Something went wrong.';
}

/** tRPC answers bad input with zod's issues as JSON text; their messages, joined. */
function zodIssues(message: string): string | undefined {
  if (!message.startsWith('[')) return undefined;
  try {
    const issues = JSON.parse(message) as Array<{ message?: string; path?: unknown[] }>;
    return issues.map((i) => `${i.path?.length ? `${i.path.join('.')}: ` : ''}${i.message ?? ''}`).join(' ');
  } catch {
    return undefined;
  }
}
