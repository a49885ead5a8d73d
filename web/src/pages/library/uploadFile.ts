// Reading a schema file in the browser into SchemaUploadInput's `content` / `content_base64`.
export const MAX_SCHEMA_BYTES = 10 * 1024 * 1024;
// how the server names the limit (MAX_SCHEMA_SIZE in app/generation/schema/loader.py)
export const MAX_SCHEMA_SIZE = `10 MiB (${MAX_SCHEMA_BYTES.toLocaleString('en-US')} bytes)`;
export const SCHEMA_EXTENSIONS = ['.json', '.xsd', '.zip'];
export const SCHEMA_ACCEPT = {
  'application/json': ['.json'],
  'application/schema+json': ['.json'],
  'application/xml': ['.xsd'],
  'text/xml': ['.xsd'],
  'application/zip': ['.zip'],
  'application/x-zip-compressed': ['.zip'],
};

export type UploadBody = { content: string; content_base64?: undefined } | { content_base64: string; content?: undefined };

const en = (n: number) => n.toLocaleString('en-US');

/** The server's own sentence for an oversized file (app/core/services/schemas.py), checked first here. */
export function tooLargeSentence(size: number): string | null {
  return size > MAX_SCHEMA_BYTES
    ? `The schema file is ${en(size)} bytes; the limit is ${MAX_SCHEMA_SIZE}.`
    : null;
}

export function extensionError(name: string): string | null {
  const lower = name.toLowerCase();
  return SCHEMA_EXTENSIONS.some((ext) => lower.endsWith(ext))
    ? null
    : `${name} is not a schema file: upload a .json (JSON Schema), .xsd or .zip of XSD files.`;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

/** Text for .json/.xsd; bytes otherwise. A text file that is not UTF-8 goes as bytes so the server
 * answers with its own sentence naming the bad byte. */
export async function readUpload(file: File): Promise<UploadBody> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!file.name.toLowerCase().endsWith('.zip')) {
    try {
      return { content: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      // fall through: the server names the offending byte
    }
  }
  return { content_base64: base64(bytes) };
}
