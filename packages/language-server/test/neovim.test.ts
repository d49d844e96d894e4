/**
 * A real Neovim (headless, 0.7+: `vim.lsp.start_client`) drives the built server over stdio:
 * diagnostics with the codes and ranges `check` gives, a quick fix applied from a code action
 * (the client sends no `data` back), completion of preset names and hover on a CIDR.
 * Needs `nvim` on PATH (.ci/run installs Debian's); reported as skipped without it.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from '@netpolicy/core';
import { SERVER_BIN } from './harness';

const hasNvim = spawnSync('nvim', ['--version'], { stdio: 'ignore' }).status === 0;
const DRIVER = fileURLToPath(new URL('./neovim/drive.lua', import.meta.url));

const POLICY = `{
  "default": "deny",
  "presets": ["npm", "pypy"],
  "connections": [
    { "tcp": { "cidrs": ["10.1.2.3/8"], "ports": [5432] } },
    { "tcp": { "cidrs": ["0.0.0.0/1"], "ports": [22] } }
  ]
}
`;

describe('Neovim as the client', () => {
  it.skipIf(!hasNvim)('shows check\'s diagnostics, applies a quick fix, completes preset names and hovers a CIDR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-nvim-'));
    const file = join(dir, 'ci.netpolicy.json');
    const out = join(dir, 'out.json');
    writeFileSync(file, POLICY);
    const r = spawnSync('nvim', ['--headless', '--clean', '-n', '-i', 'NONE', '-u', 'NONE', '-c', `luafile ${DRIVER}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NP_SERVER: SERVER_BIN, NP_FILE: file, NP_OUT: out, XDG_CACHE_HOME: join(dir, 'cache') }, timeout: 60000, encoding: 'utf8',
    });
    expect(r.error).toBeUndefined();
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.errors).toEqual([]);
    const check = validate(POLICY, { fileName: 'ci.netpolicy.json', severity: { 'broad-cidr': 'error' } }).diagnostics;
    const lines = POLICY.split('\n');
    const expected = check.map((d) => {
      const before = POLICY.slice(0, d.offset).split('\n');
      const endBefore = POLICY.slice(0, d.offset + d.length).split('\n');
      return { code: d.code, source: 'netpolicy', lnum: before.length - 1, col: before.at(-1)!.length, end_lnum: endBefore.length - 1, end_col: endBefore.at(-1)!.length, severity: d.severity === 'error' ? 1 : 2 };
    });
    expect(lines.length).toBeGreaterThan(3);
    expect(result.diagnostics).toEqual(expected);
    expect(result.fixed_title).toMatch(/10\.0\.0\.0\/8/);
    expect(result.text).toContain('"cidrs": ["10.0.0.0/8"]');
    expect(result.completion).toEqual(expect.arrayContaining(['pypi', 'cargo']));
    expect(result.completion).not.toContain('npm');
    expect(result.hover).toContain('last address: `10.255.255.255`');
    // Formatted with Neovim's options (4 spaces), saved with its final newline.
    const saved = readFileSync(file, 'utf8');
    expect(saved).toMatch(/^\{\n    "default": "deny",\n    "presets": \[\n        "npm",/);
    expect(saved.endsWith('}\n')).toBe(true);
    // Neovim 0.7 advertises no snippet support: completions are plain text.
    expect(result.completion_texts.length).toBeGreaterThan(0);
    for (const item of result.completion_texts) {
      expect(item.format).toBe(1);
      expect(item.text).not.toMatch(/\$\{?\d/);
    }
    // Nor dynamic registration: the server registers nothing (Neovim logs a warning when one does).
    let log = '';
    try { log = readFileSync(join(dir, 'cache', 'nvim', 'lsp.log'), 'utf8'); } catch {}
    expect(log).not.toMatch(/registerCapability/);
  });
});
