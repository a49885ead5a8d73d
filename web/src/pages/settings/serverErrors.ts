// Placing a mutation's error: next to the field it names (`extensions.field`, pydantic's field
// errors), anything else as one sentence for an Alert. Used by the Settings and Administration forms.
import type { CombinedError } from 'urql';
import { errorCode, errorDetail, fieldErrors } from '../../api/errors';

/** Puts an error the server does not tie to an input at a form field, by its code. */
export interface ErrorRule {
  field: string;
  code: string;
}

export interface PlacedError {
  byField: Record<string, string>;
  general: string | null;
}

function sentence(message: string): string {
  const text = message.replace(/^Value error, /, '').trim();
  if (!text) return text;
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * `fields` maps the input's keys (as the server names them, e.g. `new_password`) to the form's
 * field names. The first error per field wins; what cannot be placed stays `general`.
 */
export function placeServerError(
  error: CombinedError | undefined,
  fields: Record<string, string>,
  rules: ErrorRule[] = [],
): PlacedError {
  const byField: Record<string, string> = {};
  const detail = errorDetail(error);
  if (!error || !detail) return { byField, general: null };
  if (error.networkError) return { byField, general: detail };

  for (const item of fieldErrors(error)) {
    const key = item.field.split('.').pop() ?? item.field;
    const target = fields[key] ?? fields[item.field];
    if (target && !byField[target]) byField[target] = sentence(item.message);
  }
  if (Object.keys(byField).length === 0) {
    const code = errorCode(error);
    const rule = rules.find((r) => r.code === code);
    if (rule) byField[rule.field] = detail;
  }
  return { byField, general: Object.keys(byField).length ? null : detail };
}
