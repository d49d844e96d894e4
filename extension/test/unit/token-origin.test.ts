import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeScope, legacyTokenOrigin, originOf, scopeOf, tokenKey, withOrigin, withoutOrigin } from '../../src/token-origin';
import { confinedSegments, isInside } from '../../src/fetch-logic';

describe('token origins', () => {
  it('binds a token to the origin of the base URL, not its path, and tells origins apart', () => {
    expect(originOf('https://svc.example/api/v1/').origin).toBe('https://svc.example');
    expect(originOf(' https://SVC.example:443/x ').origin).toBe('https://svc.example');
    expect(originOf('https://svc.example:8443').origin).toBe('https://svc.example:8443');
    expect(originOf('http://127.0.0.1:4000').origin).toBe('http://127.0.0.1:4000');
    const keys = ['https://svc.example', 'https://svc.example:8443', 'http://svc.example', 'https://svc.example.evil.test'].map((o) => tokenKey(originOf(o).origin!));
    expect(new Set(keys).size).toBe(4);
  });

  it('refuses base URLs that have no origin a token could be bound to', () => {
    expect(originOf('').problem).toMatch(/not set/);
    expect(originOf('svc.example').problem).toMatch(/not a URL/);
    expect(originOf('file:///etc/passwd').problem).toMatch(/https/);
    expect(originOf('https://user:pw@svc.example').problem).toMatch(/credentials/);
  });

  it('a workspace cannot choose where a token of earlier versions goes: only the user setting can', () => {
    expect(legacyTokenOrigin({ globalValue: 'https://svc.example/a' })).toBe('https://svc.example');
    expect(legacyTokenOrigin({ workspaceValue: 'https://evil.test' })).toBeUndefined();
    expect(legacyTokenOrigin({ workspaceFolderValue: 'https://evil.test', globalValue: 'https://svc.example' })).toBe('https://svc.example');
    expect(legacyTokenOrigin(undefined)).toBeUndefined();
  });

  it('says which settings chose the origin, a workspace as such', () => {
    expect(scopeOf({ globalValue: 'a', workspaceValue: 'b' })).toBe('workspace');
    expect(scopeOf({ globalValue: 'a', workspaceFolderValue: 'b' })).toBe('folder');
    expect(scopeOf({ globalValue: 'a' })).toBe('user');
    expect(scopeOf({ defaultValue: '' })).toBe('default');
    expect(describeScope('workspace')).toMatch(/not by your user settings/);
    expect(describeScope('folder')).toMatch(/not by you/);
  });

  it('keeps the list of origins with a token without duplicates', () => {
    expect(withOrigin(['https://a', 'https://b', 3], 'https://b')).toEqual(['https://b', 'https://a']);
    expect(withoutOrigin(['https://a', 'https://b', null], 'https://a')).toEqual(['https://b']);
  });

  it('the key of one origin is never the key of another (property)', () => {
    const origin = fc.tuple(fc.constantFrom('https', 'http'), fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
      .map(([s, h, p]) => `${s}://${h}${p === undefined ? '' : `:${p}`}`);
    fc.assert(fc.property(origin, origin, (a, b) => {
      const oa = originOf(a).origin;
      const ob = originOf(b).origin;
      fc.pre(oa !== undefined && ob !== undefined);
      expect(tokenKey(oa!) === tokenKey(ob!)).toBe(oa === ob);
    }));
  });
});

describe('files written from settings stay in the workspace', () => {
  it('refuses absolute paths, drive letters, home and climbing above the folder', () => {
    for (const p of ['/tmp/x', '\\\\server\\share', 'C:/x', 'c:x', '~/x', '..', '../x', 'a/../../x', '../../escape-dir/t.json', 'a\\..\\..\\x', 'a/\u0000/b']) {
      expect(confinedSegments(p).problem, p).toBeDefined();
    }
  });

  it('keeps relative paths below the folder, normalised', () => {
    expect(confinedSegments('.netpolicy/traces/acme_app-7.json').segments).toEqual(['.netpolicy', 'traces', 'acme_app-7.json']);
    expect(confinedSegments('a/./b/../c//d').segments).toEqual(['a', 'c', 'd']);
    expect(confinedSegments('a\\b').segments).toEqual(['a', 'b']);
  });

  it('no accepted path climbs above the folder (property)', () => {
    const seg = fc.constantFrom('a', 'b', '.', '..', '', 'x.json');
    fc.assert(fc.property(fc.array(seg, { maxLength: 12 }), fc.constantFrom('/', '\\'), (segs, sep) => {
      const text = segs.join(sep);
      const r = confinedSegments(text);
      if (r.segments) expect(r.segments.every((s) => s !== '..' && s !== '.' && s !== '')).toBe(true);
      let depth = 0;
      let escapes = text.startsWith(sep); // absolute
      for (const s of segs) {
        if (s === '..') { depth--; if (depth < 0) escapes = true; } else if (s !== '.' && s !== '') depth++;
      }
      expect(r.problem !== undefined).toBe(escapes);
    }));
  });

  it('tells a real path inside the folder from one beside it', () => {
    expect(isInside('/w/ws', '/w/ws/.netpolicy/t.json')).toBe(true);
    expect(isInside('/w/ws/', '/w/ws')).toBe(true);
    expect(isInside('/w/ws', '/w/ws-evil/t.json')).toBe(false);
    expect(isInside('/w/ws', '/tmp/t.json')).toBe(false);
  });
});
