// What the integration screens share: field labels from provider field names, the webhook events,
// and where a server error belongs in the form.
import type { CombinedError } from 'urql';
import { errorCode, errorDetail, fieldErrors } from '../../api/errors';

/** The events a webhook may subscribe to (IntegrationCreateInput.events accepts exactly these). */
export const WEBHOOK_EVENTS = ['dataset.completed', 'dataset.failed', 'schema.uploaded', 'project.created'] as const;

/** Fields the service fills in itself: never typed by the user (the webhook's signing secret). */
export const GENERATED_FIELDS = new Set(['signing_secret']);

export const PROVIDER_LABELS: Record<string, string> = { webhook: 'Webhook', s3: 'S3 object storage' };

export function providerLabel(name: string): string {
  return PROVIDER_LABELS[name] ?? name;
}

const WORDS: Record<string, string> = { url: 'URL', id: 'ID', s3: 'S3' };

/** "endpoint_url" -> "Endpoint URL", "access_key_id" -> "Access key ID". */
export function fieldLabel(name: string): string {
  const words = name.split('_').map((w) => WORDS[w] ?? w);
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/** The config value shown for a field in tables and the detail page. */
export function targetOf(provider: string, config: unknown): string {
  const c = (config ?? {}) as Record<string, unknown>;
  if (provider === 'webhook') return String(c.url ?? '—');
  if (provider === 's3') {
    const bucket = String(c.bucket ?? '');
    const prefix = c.prefix ? `/${String(c.prefix)}` : '';
    return `s3://${bucket}${prefix}`;
  }
  return '—';
}

export interface PlacedErrors {
  /** Messages keyed by form field name ("name", "events" or a provider field name). */
  fields: Record<string, string>;
  /** A sentence for an Alert when the error names no field we show. */
  general: string | null;
}

/**
 * Put the server's 422/400 details next to the field they name (`config.url`, `events`, pydantic's
 * field errors). A URL the SSRF guard refuses (`unsafe_destination`) names the provider's URL field.
 */
export function placeErrors(error: CombinedError | undefined, known: string[], urlField: string | null): PlacedErrors {
  if (!error) return { fields: {}, general: null };
  const fields: Record<string, string> = {};
  for (const e of fieldErrors(error)) {
    const name = e.field.split('.').pop() ?? e.field;
    if (known.includes(name) && !fields[name]) fields[name] = sentence(e.message);
  }
  const detail = errorDetail(error);
  if (Object.keys(fields).length === 0 && urlField && errorCode(error) === 'unsafe_destination' && detail) {
    fields[urlField] = detail;
  }
  return { fields, general: Object.keys(fields).length ? null : detail };
}

function sentence(message: string): string {
  const text = message.trim();
  return text.endsWith('.') ? text : `${text}.`;
}
