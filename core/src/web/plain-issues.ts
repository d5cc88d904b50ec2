import type { z } from 'zod';

/**
 * zod's own English messages ("Invalid input: expected string, received undefined", "Too small:
 * expected string to have >=1 characters") describe the validator, not the request. Our schemas'
 * own messages ("must be a phone number such as +31 20 123 4567") read well and are kept; zod's
 * are recognised by how they start and replaced by a phrase a person writes.
 */
const ZOD_DEFAULT = /^(Invalid |Too (small|big):|Unrecognized keys?:)/;

type Issue = z.core.$ZodIssue;

const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  bigint: 'a whole number',
  date: 'a date',
  null: 'null',
};

const kind = (expected: string): string => KINDS[expected] ?? expected;
const quoted = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : String(v));

function listOf(values: readonly unknown[]): string {
  const all = values.map(quoted);
  return all.length <= 1 ? (all[0] ?? 'nothing') : `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
}

function unit(origin: string, n: number | bigint): string {
  switch (origin) {
    case 'string':
      return `${n} character${n === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      return `${n} item${n === 1 ? '' : 's'}`;
    case 'file':
      return `${n} bytes`;
    default:
      return String(n);
  }
}

function sizePhrase(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const origin = String(issue.origin);
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  if (small && origin === 'string' && Number(limit) === 1) return 'must not be empty';
  if (small && (origin === 'array' || origin === 'set') && Number(limit) === 1) return 'must have at least one item';
  const exact = 'exact' in issue && issue.exact;
  const sized = origin === 'string' || origin === 'array' || origin === 'set' || origin === 'file';
  if (exact) return sized ? `must have exactly ${unit(origin, limit)}` : `must be ${limit}`;
  if (sized) return `must have ${small ? 'at least' : 'at most'} ${unit(origin, limit)}`;
  if (issue.inclusive === false) return `must be ${small ? 'more' : 'less'} than ${limit}`;
  return `must be ${small ? 'at least' : 'at most'} ${limit}`;
}

/**
 * What is wrong with a field, as the predicate of a sentence whose subject is the field:
 * `is required`, `must be a number`, `must be one of "mc350" or "mc400"`, or the schema's own
 * message where it has one.
 */
export function plainIssue(issue: Issue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      // zod says "received undefined" for a field that is not there at all.
      if (/received undefined$/.test(issue.message)) return 'is required';
      return `must be ${kind(issue.expected)}`;
    case 'too_small':
    case 'too_big':
      return sizePhrase(issue);
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoted(issue.values[0])}`
        : `must be one of ${listOf(issue.values)}`;
    case 'invalid_format': {
      const format = String(issue.format);
      if (format === 'email') return 'must be an e-mail address';
      if (format === 'url') return 'must be a URL';
      if (format === 'uuid' || format === 'guid') return 'must be a UUID';
      if (format === 'datetime') return 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z';
      if (format === 'date') return 'must be a date such as 2026-01-31';
      return 'is not in the expected format';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not take: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'is not one of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has a value that is not valid';
    default:
      return 'is not valid';
  }
}

/**
 * The issue as one sentence naming the field: `recipient.postalCode is required`. The one wording
 * of zod's issues, for the API's error messages and `details` (and through them the dashboard's
 * and the CLI's).
 */
export function issueSentence(field: string, issue: Issue): string {
  const phrase = plainIssue(issue);
  if (!field) return phrase;
  // Our own phrases and most schema messages are predicates ("must be …"); a message that is a
  // sentence of its own ("give exactly one of …") is kept after a colon.
  if (/^(is|are|must|has|have|needs?|cannot|may)\b/.test(phrase)) return `${field} ${phrase}`;
  return `${field}: ${phrase}`;
}
