// The code examples of the library docs, compiled AND run against the installed tarballs, their
// printed output compared with what the docs say they print. `npm run release:check` calls
// `checkDocExamples` in its consumer folder (the tarballs installed, nothing of the workspace
// reachable); `node scripts/doc-examples.mjs DIR` runs them again in DIR, a consumer folder left by
// `npm run release:check -- --keep` (`<its folder>/consumer`).
//
// The convention, in docs/api.md, docs/client.md and every packages/*/README.md:
//
// - Every ```ts block is a program. It is type-checked by tsc under nodenext with strict,
//   noUncheckedIndexedAccess, exactOptionalPropertyTypes and skipLibCheck off, then run by node as
//   an ES module in a folder holding the files the examples read: `policy.netpolicy.json` and
//   `trace.json` (fixtures/traces/denials).
// - What it prints (stdout) must be exactly the ```text block that follows it (only blank lines
//   between; trailing spaces and blank lines at the end ignored). With no such block it must print
//   nothing. It must exit 0.
// - `<!-- example: continues -->` on the line just before a block: the block goes on from the
//   previous ```ts block of the same page (one program, run once; its expected output is theirs,
//   in order). For a page that builds one client and then uses it.
// - `<!-- example: no-run: REASON -->` on the line just before a block: type-checked, not run.
//   Keep these rare, and say why.
// - The service: examples use `baseUrl: 'https://provenance.example'` and `NETPOLICY_TOKEN`. They
//   run against `netpolicy serve --data fixtures/service`, started from the installed CLI: the
//   program's fetch sends requests for that origin to the server (a module loaded with --import),
//   and NETPOLICY_TOKEN is one of its valid tokens. What the examples print is what that data gives.
//
// Blocks in other languages (sh, console, json, lua, toml) are not run.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** The pages whose examples run. */
export const EXAMPLE_DOCS = ['docs/api.md', 'docs/client.md', ...['core', 'client', 'language-service', 'language-server', 'cli'].map((p) => `packages/${p}/README.md`)];

/** The origin examples name for the service; requests to it go to `netpolicy serve`. */
export const SERVICE_ORIGIN = 'https://provenance.example';
const SERVICE_TOKEN = 'demo-token-valid';

const MARK = /^<!--\s*example:\s*(continues|no-run)\s*(?::\s*(.*?))?\s*-->\s*$/;

/**
 * The examples of one page: programs (a block, or blocks joined by `continues`), each with its
 * first line (1-based), its code, the output it must print, and whether it runs.
 */
export function examplesOf(markdown, doc) {
  const lines = markdown.split('\n');
  const programs = [];
  const problems = [];
  let previous;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) { problems.push(`${doc}:${i + 1}: a code block that never closes`); break; }
    const lang = fence[1];
    const body = lines.slice(i + 1, end).join('\n');
    const mark = i > 0 ? MARK.exec(lines[i - 1]) : null;
    if (lang === 'ts') {
      let next = end + 1;
      while (next < lines.length && lines[next].trim() === '') next++;
      let expected = '';
      let last = end;
      if (/^```text\s*$/.test(lines[next] ?? '')) {
        const close = lines.findIndex((l, j) => j > next && /^```\s*$/.test(l));
        expected = lines.slice(next + 1, close).join('\n');
        last = close;
      }
      if (mark?.[1] === 'no-run' && !mark[2]) problems.push(`${doc}:${i}: <!-- example: no-run --> without a reason (no-run: REASON)`);
      if (mark?.[1] === 'continues') {
        if (!previous) problems.push(`${doc}:${i}: <!-- example: continues --> with no example before it`);
        else {
          previous.code += `\n// ${doc}:${i + 2}\n${body}\n`;
          previous.expected = joinOutput(previous.expected, expected);
          previous.lines.push(i + 1);
          i = last;
          continue;
        }
      }
      previous = { doc, line: i + 1, lines: [i + 1], code: `${body}\n`, expected, run: mark?.[1] !== 'no-run', reason: mark?.[2] };
      programs.push(previous);
      i = last;
    } else {
      if (mark) problems.push(`${doc}:${i}: an example mark before a \`${lang || 'plain'}\` block (only ts blocks run)`);
      i = end;
    }
  }
  return { programs, problems };
}

function joinOutput(a, b) {
  return a === '' ? b : b === '' ? a : `${a}\n${b}`;
}

/** Output as compared: no trailing spaces on a line, no blank lines at the end. */
function normalised(text) {
  return text.replace(/[ \t]+$/gm, '').replace(/\s+$/, '');
}

const STRICT = { strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, skipLibCheck: false, target: 'ES2022', forceConsistentCasingInFileNames: true };

/** Sends the program's requests for SERVICE_ORIGIN to the local server (loaded with --import). */
const FETCH_TO_SERVER = `const server = process.env.NETPOLICY_DOC_EXAMPLES_SERVER;
const original = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request ? request.url : String(input));
  if (server && url.origin === ${JSON.stringify(SERVICE_ORIGIN)}) {
    const target = new URL(server);
    url.protocol = target.protocol;
    url.host = target.host;
    return original(request ? new Request(url, request) : url, init);
  }
  return original(input, init);
};
`;

/** Starts `netpolicy serve --port 0` and resolves to its URL and a stop function. */
function startServer(cli, data, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, ['serve', '--data', data, '--port', '0', '--quiet'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`netpolicy serve printed no URL within 30 s: ${stderr}`)); }, 30_000);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`netpolicy serve exited (${code}): ${stderr}`)); });
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ url: line.trim().replace(/\/$/, ''), stop: () => child.kill() });
    });
  });
}

/**
 * Compiles and runs every example of `docs` (EXAMPLE_DOCS by default) in `consumer`, a folder
 * where the tarballs, typescript and @types/node are installed. Resolves to `{ failures, examples,
 * notRun }`: one message per failure (page and line, what was printed and what was expected).
 */
export async function checkDocExamples({ root, consumer, env = process.env, docs = EXAMPLE_DOCS }) {
  const failures = [];
  const dir = join(consumer, 'doc-examples');
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  cpSync(join(root, 'fixtures/traces/denials/policy.netpolicy.json'), join(dir, 'policy.netpolicy.json'));
  cpSync(join(root, 'fixtures/traces/denials/trace.json'), join(dir, 'trace.json'));
  cpSync(join(root, 'fixtures/service'), join(dir, 'service'), { recursive: true });
  writeFileSync(join(dir, 'fetch-to-server.mjs'), FETCH_TO_SERVER);

  const programs = [];
  for (const doc of docs) {
    const { programs: found, problems } = examplesOf(readFileSync(join(root, doc), 'utf8'), doc);
    failures.push(...problems);
    for (const p of found) {
      p.file = `${doc.replace(/\W+/g, '-')}-${p.line}`;
      writeFileSync(join(src, `${p.file}.mts`), `${p.code}export {};\n`);
      programs.push(p);
    }
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { ...STRICT, module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022'], types: ['node'], rootDir: 'src', outDir: 'out' },
    include: ['src/*.mts'],
  }, null, 2));
  const tsc = spawnSync(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: dir, env, encoding: 'utf8', timeout: 600_000 });
  if (tsc.status !== 0) {
    // Each error names its file, e.g. src/docs-api-md-52.mts(3,7): the page and the block's line.
    failures.push(`the examples do not type-check (src/<page>-<line of the block>.mts):\n${`${tsc.stdout}${tsc.stderr}`.trim().slice(0, 6000)}`);
  }

  const toRun = programs.filter((p) => p.run);
  let server;
  try {
    server = await startServer(join(consumer, 'node_modules/.bin/netpolicy'), join(dir, 'service'), env);
  } catch (e) {
    failures.push(`netpolicy serve (for the examples that use the service) did not start: ${e.message}`);
  }
  try {
    // Plain console.log output: no FORCE_COLOR (even empty, it makes Node colour what it inspects).
    const { FORCE_COLOR: _forced, ...plain } = env;
    const runEnv = { ...plain, NETPOLICY_TOKEN: SERVICE_TOKEN, NETPOLICY_DOC_EXAMPLES_SERVER: server?.url ?? '', NO_COLOR: '1' };
    for (const p of toRun) {
      const where = `${p.doc}:${p.lines.join(',')}`;
      const r = await runNode(['--import', pathToFileURL(join(dir, 'fetch-to-server.mjs')).href, join(dir, 'out', `${p.file}.mjs`)], dir, runEnv);
      const got = normalised(r.stdout);
      const want = normalised(p.expected);
      if (r.code !== 0 || got !== want) {
        failures.push(`${where}: the example ${r.code !== 0 ? `exited ${r.code ?? r.signal}` : 'printed something else'}\n--- printed\n${got}\n--- the docs say\n${want}${r.stderr.trim() ? `\n--- stderr\n${r.stderr.trim().slice(0, 2000)}` : ''}`);
      }
    }
  } finally {
    server?.stop();
  }
  return { failures, examples: programs.length, notRun: programs.filter((p) => !p.run).map((p) => `${p.doc}:${p.line} (${p.reason})`) };
}

/** Runs node with `args` (60 s at most); resolves to its exit code, signal, stdout and stderr. */
function runNode(args, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const consumer = process.argv[2];
  if (!consumer) {
    console.error('usage: node scripts/doc-examples.mjs CONSUMER_DIR (a folder left by npm run release:check -- --keep: <folder>/consumer)');
    process.exit(2);
  }
  const root = new URL('..', import.meta.url).pathname;
  const { failures, examples, notRun } = await checkDocExamples({ root, consumer });
  for (const f of failures) console.log(`FAIL ${f.replace(/\n/g, '\n     ')}`);
  console.log(`${examples} examples, ${failures.length} failed${notRun.length ? `; not run: ${notRun.join(', ')}` : ''}`);
  process.exit(failures.length ? 1 : 0);
}
