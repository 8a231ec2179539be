// Request validation by the contract's own schemas: the zod schema that documents a body, form, parameter or
// header is the one that checks it. A schema piece names the error code its field gives (`withErrors`); the
// first zod issue becomes one AppError with that code and a detail a person can act on.
import { z } from 'zod';
import { AppError, type ErrorCode } from '@cardlens/errors';

export interface FieldErrors {
  /** Code when the field is absent or null (default: `type`, then `invalid`, then invalid_body). */
  missing?: ErrorCode;
  /** Code when the field has the wrong JSON type (default: `invalid`, then invalid_body). */
  type?: ErrorCode;
  /** Code for any other mismatch, or a function that makes the exact error from the value (e.g. module lists). */
  invalid?: ErrorCode | ((value: unknown) => AppError);
  /** What the field must be, said to the client after the issue, e.g. "an absolute http(s) URL". */
  hint?: string;
}

/** Error codes of schema pieces. Not the global registry: these never reach the OpenAPI document. */
const fieldErrors = z.registry<FieldErrors>();

/** Attaches the error codes of one field to its schema (the same instance must be used in the object's shape). */
export function withErrors<T extends z.ZodType>(schema: T, errors: FieldErrors): T {
  fieldErrors.add(schema, errors);
  return schema;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType; left?: z.ZodType; right?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[] };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema itself and what it wraps (optional, nullable, default, pipe input, ...), outermost first. */
function unwrapped(schema: z.ZodType): z.ZodType[] {
  const chain = [schema];
  for (let current = schema; ; ) {
    const def = defOf(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return chain;
    chain.push(inner);
    current = inner;
  }
}

const errorsOf = (schema: z.ZodType): FieldErrors | undefined => {
  for (const s of unwrapped(schema)) {
    const found = fieldErrors.get(s);
    if (found) return found;
  }
  return undefined;
};

function childOf(schema: z.ZodType, key: PropertyKey): z.ZodType | undefined {
  const base = unwrapped(schema).at(-1)!;
  const def = defOf(base);
  switch (def.type) {
    case 'object':
      return def.shape?.[String(key)];
    case 'array':
      return def.element;
    case 'record':
      return def.valueType;
    case 'intersection':
      return childOf(def.left!, key) ?? childOf(def.right!, key);
    default:
      return undefined;
  }
}

/** The error codes of the deepest schema on the issue's path that declares any. */
function errorsAt(root: z.ZodType, path: readonly PropertyKey[]): FieldErrors | undefined {
  let found = errorsOf(root);
  let current: z.ZodType | undefined = root;
  for (const key of path) {
    current = current && childOf(current, key);
    if (!current) break;
    found = errorsOf(current) ?? found;
  }
  return found;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const fieldName = (label: string, path: readonly PropertyKey[]): string =>
  path.length === 0 ? label : path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');

const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/** One sentence about one issue, naming the field and what it must be. */
function describeIssue(issue: z.core.$ZodIssue, field: string, value: unknown, missing: boolean): string {
  switch (issue.code) {
    case 'invalid_type':
      return missing ? `${field} is required` : `${field} must be ${issue.expected === 'int' ? 'an integer' : `of type ${issue.expected}`}, not ${typeName(value)}`;
    case 'too_big':
      return `${field} must be at most ${String(issue.maximum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'too_small':
      return `${field} must be at least ${String(issue.minimum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'invalid_format':
      return issue.format === 'regex' ? `${field} has an invalid format` : `${field} must be a valid ${issue.format === 'url' ? 'URL' : issue.format}`;
    case 'invalid_value':
      return `${field} must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`}`;
    case 'unrecognized_keys':
      return `unexpected field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return missing ? `${field} is required` : `${field} has an unexpected form`;
    default:
      return `${field}: ${issue.message}`;
  }
}

export interface ParseOptions {
  /** How the value is named when the issue is at its root, e.g. "The request body". */
  label?: string;
  /** The detail for a value that is not even of the schema's root type (e.g. a body that is not an object). */
  rootDetail?: string;
}

/** The AppError for a value that does not match its schema: the first issue, with the field's code. */
export function requestError(schema: z.ZodType, value: unknown, error: z.ZodError, options: ParseOptions = {}): AppError {
  const issue = error.issues[0]!;
  const fieldValue = valueAt(value, issue.path);
  if (issue.path.length === 0 && issue.code === 'invalid_type' && options.rootDetail) {
    return new AppError(errorsOf(schema)?.type ?? 'invalid_body', options.rootDetail);
  }
  const errors = errorsAt(schema, issue.path) ?? {};
  const missing = fieldValue === undefined || fieldValue === null;
  const field = fieldName(options.label ?? 'The value', issue.path);
  if (typeof errors.invalid === 'function' && !(missing && errors.missing)) return errors.invalid(fieldValue);
  const invalid = typeof errors.invalid === 'string' ? errors.invalid : undefined;
  const code =
    (missing ? (errors.missing ?? errors.type) : issue.code === 'invalid_type' ? errors.type : undefined) ?? invalid ?? 'invalid_body';
  const sentence = describeIssue(issue, field, fieldValue, missing);
  return new AppError(code, `${sentence}${errors.hint ? `: ${errors.hint}` : ''}.`);
}

/** Parses a value with its contract schema; a mismatch throws the AppError of its first issue. */
export function parseRequest<T extends z.ZodType>(schema: T, value: unknown, options: ParseOptions = {}): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw requestError(schema, value, result.error, options);
  return result.data;
}
