/**
 * Small structural checks that collect every problem of a document with its JSON location, so a
 * 422 names each offending field (`$.constraints.properties[0].operator`), not just the first.
 */
import { DomainError, jsonPath, type FieldIssue } from '../../platform/errors.ts';

export type Loc = (string | number)[];

/** Collects issues; `fail()` throws them all as one validation_error. */
export interface Checker {
  issues: FieldIssue[];
  add(loc: Loc, msg: string, type?: string): void;
  /** The value as a plain object with only `allowed` keys, or undefined (issue recorded). */
  object(v: unknown, loc: Loc, allowed: readonly string[]): Record<string, unknown> | undefined;
  array(v: unknown, loc: Loc, max: number): unknown[] | undefined;
  string(v: unknown, loc: Loc, maxLength?: number): string | undefined;
  oneOf<T extends string>(v: unknown, loc: Loc, values: readonly T[]): T | undefined;
  integer(v: unknown, loc: Loc, min: number, max: number): number | undefined;
  number(v: unknown, loc: Loc): number | undefined;
  fail(): void;
}

/** A fresh checker whose issue locations start with `root` (e.g. ['body']). */
export function createChecker(root: Loc = ['body']): Checker {
  const issues: FieldIssue[] = [];
  const add = (loc: Loc, msg: string, type = 'value_error') =>
    void issues.push({ loc: [...root, ...loc], msg, type });
  return {
    issues,
    add,
    object(v, loc, allowed) {
      if (!v || typeof v !== 'object' || Array.isArray(v))
        return void add(loc, 'must be an object', 'type_error.object');
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (!allowed.includes(k))
          add([...loc, k], `unknown field; allowed fields: ${allowed.join(', ')}`, 'value_error.extra');
      }
      return o;
    },
    array(v, loc, max) {
      if (!Array.isArray(v)) return void add(loc, 'must be an array', 'type_error.array');
      if (v.length > max)
        return void add(loc, `at most ${max} entries, got ${v.length}`, 'value_error.too_long');
      return v;
    },
    string(v, loc, maxLength = 2000) {
      if (typeof v !== 'string' || v.trim() === '')
        return void add(loc, 'must be a non-empty string', 'type_error.string');
      if (v.length > maxLength)
        return void add(loc, `at most ${maxLength} characters`, 'value_error.too_long');
      return v.trim();
    },
    oneOf(v, loc, values) {
      if (typeof v !== 'string' || !values.includes(v as never))
        return void add(loc, `must be one of: ${values.join(', ')}`, 'value_error.enum');
      return v as (typeof values)[number];
    },
    integer(v, loc, min, max) {
      if (typeof v !== 'number' || !Number.isInteger(v))
        return void add(loc, 'must be an integer', 'type_error.integer');
      if (v < min || v > max) return void add(loc, `must be between ${min} and ${max}`, 'value_error.range');
      return v;
    },
    number(v, loc) {
      if (typeof v !== 'number' || !Number.isFinite(v))
        return void add(loc, 'must be a finite number', 'type_error.number');
      return v;
    },
    fail() {
      if (!issues.length) return;
      const head = issues
        .slice(0, 5)
        .map((i) => `${jsonPath(i.loc)}: ${i.msg}`)
        .join('; ');
      throw new DomainError(
        'validation_error',
        issues.length > 5 ? `${head}; and ${issues.length - 5} more` : head,
        { issues },
      );
    },
  };
}
