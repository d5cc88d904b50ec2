import type { DownloadedFile, DownloadRequest, MultipartField } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { fileTypeFromBuffer } from 'file-type';
import { SafeFetchError, type SafeResponse } from '../../../infra/safe-fetch/safe-fetch.ts';

/** A file host may hand over to its CDN, and that to a signed URL: a few hops, each checked again by the guard. */
export const MAX_DOWNLOAD_REDIRECTS = 5;

/**
 * The parts as the platform's fetch encodes a FormData (its boundary, its escaping of names and file names): the
 * body's bytes and the Content-Type that names the boundary.
 */
export async function multipartBody(fields: MultipartField[]): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const field of fields) {
    if ('file' in field)
      form.append(
        field.name,
        new Blob([field.file.bytes as Uint8Array<ArrayBuffer>], { type: field.file.contentType }),
        field.file.filename,
      );
    else form.append(field.name, field.value);
  }
  const encoded = new Request('https://multipart.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/** The downloaded answer as a file of an accepted type, or why it is not one (in words for the merchant). */
export async function downloadedFile(req: DownloadRequest, res: SafeResponse): Promise<DownloadedFile> {
  const file = fileAt(req.url);
  if (res.status !== 200)
    throw new ConnectorError('invalid_payload', `${file} could not be downloaded: its server answered ${res.status}`);
  if (res.body.length > req.maxBytes)
    throw new ConnectorError('invalid_payload', `${file} is larger than ${megabytes(req.maxBytes)}`);
  const type = res.body.length > 0 ? await fileTypeFromBuffer(res.body) : undefined;
  if (!type || !req.accept.includes(type.mime))
    throw new ConnectorError(
      'invalid_payload',
      `${file} is ${res.body.length === 0 ? 'empty' : type ? `${type.mime}` : 'of a type its bytes do not tell'}, not one of ${req.accept.join(', ')}`,
    );
  return { bytes: new Uint8Array(res.body), contentType: type.mime, filename: `${baseName(req.url)}.${type.ext}` };
}

/** SafeFetch's refusal or failure of a download, naming the hop that failed (a redirect's target included). */
export function downloadFailure(req: DownloadRequest, err: unknown): ConnectorError {
  const file = fileAt(req.url);
  if (!(err instanceof SafeFetchError))
    return new ConnectorError('upstream_unavailable', `${file} could not be downloaded`, { cause: err });
  const hop = err.redirects.length > 0 ? ` (redirected to ${shown(err.url ?? '')})` : '';
  const refused = (why: string) => new ConnectorError('invalid_payload', `${file}${hop}: ${why}`, { cause: err });
  switch (err.code) {
    case 'address_blocked':
      return refused(`${hostOf(err.url ?? req.url)} is not a public internet address`);
    case 'scheme_not_allowed':
      return refused('only https addresses can be downloaded');
    case 'invalid_url':
      return refused('not a usable URL (https, without a user name or password)');
    case 'too_many_redirects':
      return refused(`redirects more than ${MAX_DOWNLOAD_REDIRECTS} times`);
    case 'timeout':
      return new ConnectorError('upstream_unavailable', `${file}${hop}: timed out`, { cause: err });
    default:
      return new ConnectorError('upstream_unavailable', `${file}${hop} could not be downloaded (${err.code})`, {
        cause: err,
      });
  }
}

/** "The file at https://host/path". */
function fileAt(url: string): string {
  return `The file at ${shown(url)}`;
}

/** The URL without its query: a signed URL's signature travels there. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/** The URL's last path segment without its extension, in characters safe in any file name (`file` without one). */
function baseName(url: string): string {
  let segment = '';
  try {
    segment = decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '');
  } catch {
    // an undecodable or invalid URL: no name of its own
  }
  const name = segment
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return name || 'file';
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${bytes} bytes`;
}
