// Reading the server's errors: the `detail` sentence (for people), and for the program the stable
// `extensions.code` (app/core/error_codes.py), `extensions.status` and the `extensions.field` an
// error is about, with pydantic's field-level errors (`extensions.errors`). A form places an error
// by field and code, never by matching the sentence: sentences may be reworded.
import type { CombinedError } from 'urql';

export interface FieldError {
  /** The input's path, as the server names it: `record_count`, `params.seed`, `rules.2.pattern`. */
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

/** The HTTP status the error stands for (404 for anything not found, 401 unauthenticated, ...). */
export function errorStatus(error: CombinedError | undefined): number | null {
  const status = firstGraphQLError(error)?.extensions?.status;
  return typeof status === 'number' ? status : null;
}

/** The input the error is about (`extensions.field`), if it is about one. */
export function errorField(error: CombinedError | undefined): string | null {
  const field = firstGraphQLError(error)?.extensions?.field;
  return typeof field === 'string' ? field : null;
}

/** Every field the error names: the error's own `field` (with its detail) first, then each of
 *  pydantic's field-level errors. */
export function fieldErrors(error: CombinedError | undefined): FieldError[] {
  const first = firstGraphQLError(error);
  const raw = first?.extensions?.errors;
  const listed = Array.isArray(raw)
    ? raw.flatMap((e: unknown) => {
        if (e && typeof e === 'object' && 'field' in e && 'message' in e) {
          const { field, message } = e as { field: unknown; message: unknown };
          return [{ field: String(field), message: String(message) }];
        }
        return [];
      })
    : [];
  const field = errorField(error);
  if (field && first && !listed.some((e) => e.field === field)) return [{ field, message: first.message }, ...listed];
  return listed;
}

/** The path's segments without the operation's wrappers: `input.params.seed` -> ['params', 'seed']. */
export function fieldPath(field: string): string[] {
  return field.split('.').filter((part) => part !== 'input' && part !== 'body');
}
