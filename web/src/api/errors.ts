// Reading the server's errors: `detail` sentences, codes and field-level errors (extensions.errors).
import type { CombinedError } from 'urql';

export interface FieldError {
  field: string;
  message: string;
}

function firstGraphQLError(error: CombinedError | undefined) {
  return error?.graphQLErrors[0];
}

/** The server's one-sentence detail, or a sentence about the network. */
export function errorDetail(error: CombinedError | undefined): string | null {
  if (!error) return null;
  if (error.networkError) return 'The server could not be reached. Check your connection and try again.';
  return firstGraphQLError(error)?.message ?? error.message;
}

export function errorCode(error: CombinedError | undefined): string | null {
  const code = firstGraphQLError(error)?.extensions?.code;
  return typeof code === 'string' ? code : null;
}

export function fieldErrors(error: CombinedError | undefined): FieldError[] {
  const raw = firstGraphQLError(error)?.extensions?.errors;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((e: unknown) => {
    if (e && typeof e === 'object' && 'field' in e && 'message' in e) {
      const { field, message } = e as { field: unknown; message: unknown };
      return [{ field: String(field), message: String(message) }];
    }
    return [];
  });
}
