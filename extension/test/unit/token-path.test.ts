/** A path on the token's origin chosen by a workspace (issue 28 item 8): asked about once per folder. */
import { describe, expect, it } from 'vitest';
import { baseUrlKey, needsPathConfirmation } from '../../src/token-origin';

describe('a workspace-chosen path on the origin of a token', () => {
  it('reads a base URL as origin and path', () => {
    expect(baseUrlKey('https://svc.example/api/')).toBe('https://svc.example/api');
    expect(baseUrlKey(' https://SVC.example:443/api?x=1#f')).toBe('https://svc.example/api');
    expect(baseUrlKey('http://127.0.0.1:47822/@127.0.0.1:47822/x')).toBe('http://127.0.0.1:47822/@127.0.0.1:47822/x');
    expect(baseUrlKey('https://svc.example')).toBe('https://svc.example');
    expect(baseUrlKey('nope')).toBeUndefined();
  });

  it('asks when a folder or workspace names another path than the token was entered with', () => {
    const entered = 'http://127.0.0.1:47822';
    const hostile = 'http://127.0.0.1:47822/@127.0.0.1:47822/steal';
    expect(needsPathConfirmation(hostile, 'folder', entered, [])).toBe(true);
    expect(needsPathConfirmation(hostile, 'workspace', entered, [])).toBe(true);
    // An earlier token (no base URL recorded) is asked about too.
    expect(needsPathConfirmation(hostile, 'folder', undefined, [])).toBe(true);
  });

  it('does not ask again once the folder agreed to that path, nor for the path the token was entered with', () => {
    const hostile = 'http://127.0.0.1:47822/other/';
    expect(needsPathConfirmation(hostile, 'folder', 'http://127.0.0.1:47822', ['http://127.0.0.1:47822/other'])).toBe(false);
    expect(needsPathConfirmation('https://svc.example/api/', 'folder', 'https://svc.example/api', [])).toBe(false);
    // Agreeing to one path is not agreeing to another.
    expect(needsPathConfirmation('http://127.0.0.1:47822/third', 'folder', 'http://127.0.0.1:47822', ['http://127.0.0.1:47822/other'])).toBe(true);
  });

  it("never asks about the user's own settings", () => {
    expect(needsPathConfirmation('https://svc.example/elsewhere', 'user', 'https://svc.example/api', [])).toBe(false);
    expect(needsPathConfirmation('https://svc.example/elsewhere', 'default', undefined, [])).toBe(false);
  });
});
