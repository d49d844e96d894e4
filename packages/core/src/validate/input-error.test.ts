import { describe, expect, it } from 'vitest';
import { validate } from './validate';
import { parsePolicyDocument } from './document';
import { InputError } from './input-error';

function thrown(f: () => unknown): InputError {
  try { f(); } catch (e) { expect(e).toBeInstanceOf(InputError); return e as InputError; }
  throw new Error('nothing thrown');
}

describe('validate refuses a text that is not a string, by name', () => {
  const hint = " (the policy file's text; for an object, pass JSON.stringify(value))";
  it.each([
    [undefined, 'undefined'], [null, 'null'], [42, 'a number (42)'], [true, 'a boolean (true)'],
    [{ default: 'deny' }, 'an object'], [['{}'], 'an array'], [Symbol('s'), 'a symbol'], [10n, 'a bigint'],
  ])('%s', (value, described) => {
    const e = thrown(() => validate(value as never));
    expect({ name: e.name, argument: e.argument, message: e.message }).toEqual({ name: 'InputError', argument: 'text', message: `validate: text must be a string, got ${described}${hint}` });
  });

  it('options that are not an object', () => {
    expect(thrown(() => validate('{}', 'p.json' as never)).message).toBe('validate: options must be an object, got a string');
  });

  it('parsePolicyDocument too', () => {
    expect(thrown(() => parsePolicyDocument(undefined as never)).message).toBe('parsePolicyDocument: text must be a string, got undefined');
  });
});

describe('the result narrows on valid', () => {
  it('valid: the value is the policy; not valid: the value as parsed, with an error', () => {
    const good = validate('{ "default": "deny" }');
    expect(good).toEqual({ valid: true, value: { default: 'deny' }, diagnostics: [] });
    const bad = validate('{ "default": "block" }');
    expect(bad.valid).toBe(false);
    expect(bad.value).toEqual({ default: 'block' });
    expect(bad.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    const notJson = validate('{');
    expect({ valid: notJson.valid, value: notJson.value }).toEqual({ valid: false, value: undefined });
  });

  it('a lint finding raised to error makes it not valid', () => {
    const r = validate('{ "default": "deny", "presets": ["pypi", "pypi"] }', { severity: { 'duplicate-rule': 'error' } });
    // Whatever the finding, valid is exactly "no error diagnostic".
    expect(r.valid).toBe(!r.diagnostics.some((d) => d.severity === 'error'));
  });
});
