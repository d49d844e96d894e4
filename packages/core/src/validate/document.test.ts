import { describe, expect, it, vi } from 'vitest';
import { lintRules } from '../lint/index';
import { nodeAt, parsePolicyDocument } from './document';
import { schemaAt } from './schema-at';
import { validate, validateDocument } from './validate';
import { loadPresetCatalog, defaultPresetCatalog } from '../presets/catalog';
import { PRESET_NAMES } from '../policy/types';

/** The text with `|` removed and the offset where it was. */
function cursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('|');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}

describe('parsePolicyDocument', () => {
  it('gives the value, the tree, the line index and syntax diagnostics of one parse', () => {
    const doc = parsePolicyDocument('{\n  "default": "deny", // c\n}', { fileName: 'p.json' });
    expect(doc.jsonc).toBe(false);
    expect(doc.value).toEqual({ default: 'deny' });
    expect(doc.syntaxDiagnostics.map((d) => d.code)).toEqual(['trailing-comma', 'comment-not-allowed']);
    expect(doc.root?.type).toBe('object');
    expect(doc.lineIndex.positionAt(doc.text.indexOf('"deny"'))).toEqual({ line: 1, character: 13 });
  });

  it('decides JSONC from the file name (D6) or the option', () => {
    expect(parsePolicyDocument('{/*c*/}', { fileName: 'a.netpolicy.jsonc' }).syntaxDiagnostics).toEqual([]);
    expect(parsePolicyDocument('{/*c*/}', { fileName: 'a.json', jsonc: true }).syntaxDiagnostics).toEqual([]);
    expect(parsePolicyDocument('{/*c*/}', {}).syntaxDiagnostics.map((d) => d.code)).toEqual(['comment-not-allowed']);
  });

  it('keeps offsets of a text with a byte-order mark', () => {
    const text = '\ufeff{"default": "block"}';
    const [d] = validateDocument(parsePolicyDocument(text, { fileName: 'p.json' }));
    expect(text.slice(d.offset, d.offset + d.length)).toBe('"block"');
  });

  it('validateDocument equals validate on the same text', () => {
    const text = '{"presets": ["pypy"], "sources": [{"npm": {"urls": ["http://r.example"]}}]}';
    expect(validateDocument(parsePolicyDocument(text, { fileName: 'p.json' }))).toEqual(validate(text, { fileName: 'p.json' }).diagnostics);
  });
});

describe('nodeAt', () => {
  const at = (marked: string) => {
    const { text, offset } = cursor(marked);
    const found = nodeAt(parsePolicyDocument(text, { fileName: 'p.jsonc' }), offset);
    return found && { pointer: found.pointer, isKey: found.isKey, type: found.node.type };
  };

  it('names values and keys by pointer', () => {
    expect(at('{"sources": [{"pypi": {"urls": ["https://p|.example"]}}]}')).toEqual({ pointer: '/sources/0/pypi/urls/0', isKey: false, type: 'string' });
    expect(at('{"sources": [{"py|pi": {"urls": []}}]}')).toEqual({ pointer: '/sources/0/pypi', isKey: true, type: 'string' });
    expect(at('{"ports": [44|3]}')).toEqual({ pointer: '/ports/0', isKey: false, type: 'number' });
  });

  it('finds the container in whitespace, and works in unfinished documents', () => {
    expect(at('{"connections": [{"tls": { | }}]}')).toEqual({ pointer: '/connections/0/tls', isKey: false, type: 'object' });
    expect(at('{"sources": [{"pypi": {"urls": [|')).toMatchObject({ pointer: '/sources/0/pypi/urls' });
    expect(at('{"presets": ["py|')).toMatchObject({ pointer: '/presets/0', isKey: false });
    expect(at('{"sources": [{"oci": {"ur|')).toMatchObject({ isKey: true });
  });

  it('is undefined for an empty document and tolerates offsets out of range', () => {
    expect(nodeAt(parsePolicyDocument('', {}), 0)).toBeUndefined();
    expect(nodeAt(parsePolicyDocument('{}', {}), 1e9)?.pointer).toBe('');
    expect(nodeAt(parsePolicyDocument('{}', {}), Number.NaN)).toBeUndefined();
  });
});

describe('schemaAt', () => {
  it('follows references and keeps a member description beside its $ref', () => {
    expect(schemaAt('/sources/3/git/ssh/0/port')).toMatchObject({ type: 'integer', minimum: 1, description: expect.stringContaining('usually 22') });
    expect(schemaAt('/connections/0/tls/ports')).toMatchObject({ type: 'array', minItems: 1 });
    expect(schemaAt('')?.title).toBe('Network policy of a CI job');
  });

  it('is undefined where the schema allows nothing', () => {
    expect(schemaAt('/nope')).toBeUndefined();
    expect(schemaAt('/sources/x')).toBeUndefined();
    expect(schemaAt('/__proto__')).toBeUndefined();
  });

  it('lists the preset names of the catalog in force', () => {
    expect(schemaAt('/presets/0', defaultPresetCatalog)?.enum).toEqual([...PRESET_NAMES]);
    const catalog = loadPresetCatalog({ presets: [{ name: 'corp-mirror', opaque: true }] });
    expect(schemaAt('/presets/0', catalog)?.enum).toContain('corp-mirror');
  });
});

describe('preset names come from the catalog in force', () => {
  const catalog = loadPresetCatalog({ presets: [{ name: 'corp-mirror', known: { sources: [{ pypi: { urls: ['https://pypi.corp.example'] } }] } }] });
  const text = '{"presets": ["corp-mirror"], "sources": [{"pypi": {"urls": ["https://pypi.corp.example"]}}]}';

  it('a preset the user catalog adds is a valid name, and lint names it', () => {
    const codes = validate(text, { fileName: 'p.json', catalog }).diagnostics.map((d) => d.code);
    expect(codes).toEqual(['redundant-with-preset']);
  });

  it('without that catalog it is an unknown preset, with the built-in names listed', () => {
    const [d] = validate(text, { fileName: 'p.json' }).diagnostics.filter((x) => x.code === 'unknown-preset');
    expect(d).toMatchObject({ pointer: '/presets/0', severity: 'error' });
    expect(d.message).toContain('`pypi`');
  });

  it('PRESET_NAMES is generated from the catalog', () => {
    expect([...PRESET_NAMES]).toEqual(defaultPresetCatalog.presets.map((p) => p.name));
  });
});

describe('severity', () => {
  const text = '{"connections": [{"tcp": {"cidrs": ["0.0.0.0/1"]}}], "sources": [{"npm": {"urls": ["http://r.example"]}}]}';
  it('sets a lint code severity, or turns the rule off', () => {
    const ds = validate(text, { fileName: 'p.json', severity: { 'broad-cidr': 'error', 'insecure-url': 'off' } }).diagnostics;
    expect(ds.map((d) => [d.code, d.severity])).toEqual([['broad-cidr', 'error']]);
  });
  it('a rule that is off does no work', () => {
    const rule = lintRules.find((r) => r.code === 'broad-cidr')!;
    const spy = vi.spyOn(rule, 'check');
    validate(text, { fileName: 'p.json', severity: { 'broad-cidr': 'off' } });
    expect(spy).not.toHaveBeenCalled();
    validate(text, { fileName: 'p.json' });
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
  it('carries related and tags of lint findings', () => {
    const rule = lintRules.find((r) => r.code === 'duplicate-rule')!;
    const spy = vi.spyOn(rule, 'check').mockReturnValue([{
      code: 'duplicate-rule', pointer: '/sources/0', message: 'm', data: { kind: 'remove-element', title: 'Remove' },
      related: [{ pointer: '/connections/0', message: 'the earlier rule' }], tags: ['unnecessary'],
    }]);
    const d = validate(text, { fileName: 'p.json' }).diagnostics.find((x) => x.code === 'duplicate-rule');
    spy.mockRestore();
    expect(d).toMatchObject({ related: [{ pointer: '/connections/0', message: 'the earlier rule' }], tags: ['unnecessary'], data: { kind: 'remove-element' } });
    expect(text.slice(d!.offset, d!.offset + d!.length)).toBe('{"npm": {"urls": ["http://r.example"]}}');
  });
  it('defaults to warning', () => {
    expect(validate(text, { fileName: 'p.json' }).diagnostics.map((d) => d.severity)).toEqual(['warning', 'warning']);
  });
});

describe('nodeAt on any text', () => {
  it('never throws, and its pointer leads back to a node that holds the offset', async () => {
    const fc = (await import('fast-check')).default;
    const { Locator } = await import('./locate');
    const base = '{"sources": [{"pypi": {"urls": ["https://a.example"]}}], "connections": [{"tls": {"ports": [443], "cidrs": ["10.0.0.0/8"]}}], "presets": ["npm"]}';
    fc.assert(fc.property(fc.nat(base.length), fc.nat(4), fc.constantFrom('', '"', '{', '[', ',', ':', '}'), fc.nat(base.length + 2), (at, del, ins, offset) => {
      const text = base.slice(0, at) + ins + base.slice(at + del);
      const doc = parsePolicyDocument(text, { fileName: 'p.jsonc' });
      const found = nodeAt(doc, offset);
      if (!found) return;
      expect(found.node.offset).toBeLessThanOrEqual(Math.min(offset, text.length));
      expect(found.node.offset + found.node.length).toBeGreaterThanOrEqual(Math.min(offset, text.length));
      const located = new Locator(doc).find(found.pointer);
      expect(located).toBeDefined();
    }), { numRuns: 500 });
  });
});

describe('LineIndex.offsetAt', () => {
  it('a character past the end of a line is that line\'s end, before its line break (LSP), whatever the line breaks', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = `{${eol}  "a": 1${eol}}`;
      const index = parsePolicyDocument(text, { fileName: 'p.json' }).lineIndex;
      expect(index.offsetAt({ line: 0, character: 7 }), JSON.stringify(eol)).toBe(1);
      expect(index.offsetAt({ line: 1, character: 99 }), JSON.stringify(eol)).toBe(1 + eol.length + 8);
      expect(index.offsetAt({ line: 1, character: 2 })).toBe(1 + eol.length + 2);
      expect(index.offsetAt({ line: 2, character: 5 })).toBe(text.length);
      expect(index.offsetAt({ line: 9, character: 0 })).toBe(text.length);
      // Every offset's position maps back to it (line starts and ends included).
      for (let o = 0; o <= text.length; o++) {
        if (text[o - 1] === '\r' && text[o] === '\n') continue; // inside a CRLF: not a position
        expect(index.offsetAt(index.positionAt(o))).toBe(o);
      }
    }
  });
});
