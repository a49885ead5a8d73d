// The server's validation errors by form field: pydantic names the field (`name`, `tags.0`,
// `input.description`); the first one gets the full detail sentence, the rest their own message.
import type { CombinedError } from 'urql';
import { errorDetail, fieldErrors } from '../../api/errors';

export interface PlacedErrors {
  fields: Record<string, string>;
  general: string | null;
}

export function placeErrors(error: CombinedError | undefined, known: readonly string[]): PlacedErrors {
  const detail = errorDetail(error);
  if (!detail) return { fields: {}, general: null };
  const fields: Record<string, string> = {};
  fieldErrors(error).forEach((e, i) => {
    const key = e.field.split('.').find((part) => part !== 'input' && part !== 'body');
    if (key && known.includes(key) && !fields[key]) fields[key] = i === 0 ? detail : e.message;
  });
  return { fields, general: Object.keys(fields).length ? null : detail };
}
