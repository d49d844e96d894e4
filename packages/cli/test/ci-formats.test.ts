/** The CI formats as pure functions: GitHub workflow commands, GitLab Code Quality, JUnit XML, job summaries. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeControl, validate } from '@netpolicy/core';
import { annotation, escapeData, escapeProperty, fencedLog, githubAnnotations, workspacePath } from '../src/ci-formats/github';
import { hash128, projectPath, toGitlab } from '../src/ci-formats/gitlab';
import { checkSuites, junitXml, xmlText, type JUnitSuite } from '../src/ci-formats/junit';
import { boundedTable, findingsSummary, mdCode, mdText } from '../src/ci-formats/summary';
import { countLevels, diagnosticFindings, type CiFinding, type CiLevel } from '../src/ci-formats/finding';
import { codeQualityErrors, junitErrors, logLines, parseWorkflowCommand, runnerCommands, xmlUnescape } from './ci-formats-helpers';

/** Text chosen to break a format: line breaks, `::`, `%` escapes, commas, colons, markup, controls, bidi, lone surrogates. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom('\n', '\r', '\r\n', '::', '::error::x', '%', '%0A', '%25', ',', ':', '=', '&', '<', '>', '"', "'", '|', '`', '*', '_', '[', ']', '<script>', '&amp;', '\u001b[31m', '\u0000', '\u0085', '\u2028', '\u202e', '\ud800', '\udc00', '\ufffe', '\uffff', 'https://evil.example', ' ', 'a', 'é', '😀'), { maxLength: 12 }).map((a) => a.join('')),
);

const finding = (over: Partial<CiFinding> = {}): CiFinding => ({
  level: 'error', file: 'policies/p.netpolicy.json', code: 'invalid-url',
  range: { startLine: 3, startColumn: 5, endLine: 3, endColumn: 20 }, message: 'not a URL', key: '/sources/0', ...over,
});

const cwd = '/work/repo';

describe('github workflow commands', () => {
  it('escapes as the runner documents: %, CR, LF in data; also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%d\n')).toBe('a%3Ab%2Cc%25d%0A');
  });

  it('writes file (relative to the workspace), line, col, endLine, endColumn and title', () => {
    const line = annotation(finding(), { cwd, workspace: cwd });
    expect(line).toBe('::error file=policies/p.netpolicy.json,line=3,col=5,endLine=3,endColumn=20,title=invalid-url::not a URL\n');
    // The working directory below the workspace: the path is made relative to the workspace.
    expect(annotation(finding({ file: 'p.json' }), { cwd: `${cwd}/sub`, workspace: cwd })).toMatch(/^::error file=sub\/p\.json,/);
  });

  it('names a file outside the workspace in the message instead of placing the annotation', () => {
    expect(workspacePath('/elsewhere/p.json', cwd, cwd)).toBeUndefined();
    expect(workspacePath('../p.json', cwd, cwd)).toBeUndefined();
    expect(workspacePath('..p.json', cwd, cwd)).toBe('..p.json');
    const c = parseWorkflowCommand(annotation(finding({ file: '/elsewhere/p.json' }), { cwd, workspace: cwd }))!;
    expect(c.properties).toEqual({ title: 'invalid-url' });
    expect(c.message).toBe('/elsewhere/p.json:3:5: not a URL');
  });

  it('a hostile finding stays one annotation, and reads back as its escaped text', () => {
    fc.assert(fc.property(hostileText, hostileText, hostileText, fc.constantFrom<CiLevel>('error', 'warning', 'notice'), (message, file, code, level) => {
      const text = annotation({ level, file: file || 'x', code: code || 'c', message, range: { startLine: 1, startColumn: 2, endLine: 1, endColumn: 3 } }, { cwd, workspace: cwd });
      const lines = logLines(text);
      expect(lines).toHaveLength(1);
      const c = parseWorkflowCommand(lines[0]);
      expect(c?.command).toBe(level);
      const path = workspacePath(file || 'x', cwd, cwd);
      // The runner trims the line: trailing blanks of the message are its only loss.
      const shown = `${path === undefined ? `${escapeControl(file || 'x')}:1:2: ` : ''}${escapeControl(message)}`;
      expect(c!.message).toBe(shown.trimEnd());
      // The runner trims the properties too: the last one (title) loses trailing blanks.
      const title = escapeControl(code || 'c').trimEnd();
      expect(c!.properties.title ?? '').toBe(title);
      if (path !== undefined) expect(c!.properties).toEqual({ file: escapeControl(path), line: '1', col: '2', endLine: '1', endColumn: '3', title });
    }), { numRuns: 500 });
  });

  it('details become lines of one annotation (%0A), each escaped on its own', () => {
    const c = parseWorkflowCommand(annotation(finding({ message: 'denied', details: ['fix: add x', 'evil\n::error::y'] }), { cwd }))!;
    expect(c.message).toBe('denied\nfix: add x\nevil\\n::error::y');
  });

  it('shows at most 10 of each level, errors first, and one notice counting the rest', () => {
    const findings = [
      ...Array.from({ length: 12 }, (_, i) => finding({ level: 'notice', message: `n${i}` })),
      ...Array.from({ length: 3 }, (_, i) => finding({ level: 'warning', message: `w${i}` })),
      ...Array.from({ length: 25 }, (_, i) => finding({ level: 'error', message: `e${i}` })),
    ];
    const { text, counts, omitted } = githubAnnotations(findings, { cwd, workspace: cwd, seeAll: 'the job summary' });
    const commands = logLines(text).map((l) => parseWorkflowCommand(l)!);
    expect(counts).toEqual({ error: 25, warning: 3, notice: 12 });
    expect(omitted).toEqual({ error: 15, warning: 0, notice: 3 });
    expect(commands.map((c) => c.command)).toEqual([...Array(10).fill('error'), ...Array(3).fill('warning'), ...Array(10).fill('notice')]);
    expect(commands.slice(0, 10).map((c) => c.message)).toEqual(Array.from({ length: 10 }, (_, i) => `e${i}`));
    expect(commands[22].message).toBe('15 errors, 3 notices not shown as annotations (GitHub shows 10 of each level per step): see the job summary.');
  });

  it('never more than 10 per level, whatever the mix, and the count notice exactly when something is left out', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom<CiLevel>('error', 'warning', 'notice'), { maxLength: 60 }), (levels) => {
      const { text } = githubAnnotations(levels.map((level, i) => finding({ level, message: `m${i}` })), { cwd, seeAll: 'x' });
      const commands = logLines(text).map((l) => parseWorkflowCommand(l)!);
      const n = (l: CiLevel) => levels.filter((x) => x === l).length;
      const per = (l: CiLevel) => commands.filter((c) => c.command === l).length;
      for (const l of ['error', 'warning', 'notice'] as const) expect(per(l)).toBeLessThanOrEqual(10);
      const leftOut = n('error') > 10 || n('warning') > 10 || n('notice') > 10;
      expect(commands.some((c) => c.properties.title === 'netpolicy: more findings')).toBe(leftOut);
      const shown = commands.filter((c) => c.properties.title !== 'netpolicy: more findings').length;
      expect(shown).toBe(Math.min(n('error'), 10) + Math.min(n('warning'), 10) + Math.min(n('notice'), leftOut ? 9 : 10));
      // Errors before warnings before notices.
      const order = commands.map((c) => ['error', 'warning', 'notice'].indexOf(c.command));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }));
  });

  it('a fenced log runs no command, whatever its lines', () => {
    fc.assert(fc.property(fc.array(hostileText, { maxLength: 8 }), (lines) => {
      const log = lines.map((l) => `${l}\n`).join('');
      const token = 'a3f9c2d17e6b4058';
      fc.pre(!log.includes(token));
      const commands = runnerCommands(fencedLog('All findings', log, token) + '::error::after\n');
      expect(commands.map((c) => c.command)).toEqual(['group', 'stop-commands', 'endgroup', 'error']);
    }));
  });
});

describe('gitlab code quality', () => {
  const parse = (findings: CiFinding[], root = cwd) => JSON.parse(toGitlab(findings, { cwd, root }));

  it('is valid against the schema written from GitLab\'s field table', () => {
    const report = parse([finding(), finding({ level: 'warning', code: 'broad-cidr' }), finding({ level: 'notice', file: undefined, range: undefined })]);
    expect(codeQualityErrors(report)).toEqual([]);
    expect(report[0]).toEqual({
      description: 'not a URL', check_name: 'invalid-url', fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      severity: 'major', location: { path: 'policies/p.netpolicy.json', lines: { begin: 3 } },
    });
    expect(report.map((i: { severity: string }) => i.severity)).toEqual(['major', 'minor', 'info']);
    expect(parse([])).toEqual([]);
    expect(codeQualityErrors(parse([]))).toEqual([]);
  });

  it('the schema rejects what GitLab would not read', () => {
    const good = parse([finding()])[0];
    expect(codeQualityErrors([{ ...good, severity: 'error' }])).not.toEqual([]);
    expect(codeQualityErrors([{ ...good, fingerprint: undefined }])).not.toEqual([]);
    expect(codeQualityErrors([{ ...good, location: { path: 'p' } }])).not.toEqual([]);
    expect(codeQualityErrors([{ ...good, location: { path: 'p', lines: { begin: 0 } } }])).not.toEqual([]);
  });

  it('fingerprints are unique in a report and the same in every run, wherever the line moves', () => {
    const a = parse([finding(), finding({ key: '/sources/1' }), finding(), finding({ code: 'broad-cidr' })]);
    const fps = a.map((i: { fingerprint: string }) => i.fingerprint);
    expect(new Set(fps).size).toBe(4);
    const moved = parse([finding({ range: { startLine: 40, startColumn: 1, endLine: 40, endColumn: 2 }, message: 'reworded' }), finding({ key: '/sources/1' }), finding(), finding({ code: 'broad-cidr' })]);
    expect(moved.map((i: { fingerprint: string }) => i.fingerprint)).toEqual(fps);
    expect(hash128('abc')).toBe(hash128('abc'));
    expect(hash128('abc')).not.toBe(hash128('abd'));
  });

  it('hostile text: valid, unique fingerprints, descriptions escaped', () => {
    fc.assert(fc.property(fc.array(fc.record({ message: hostileText, file: hostileText, code: hostileText, key: hostileText }), { maxLength: 20 }), (items) => {
      const report = parse(items.map((x) => finding({ message: x.message || 'm', file: x.file || 'f', code: x.code || 'c', key: x.key })));
      expect(codeQualityErrors(report)).toEqual([]);
      expect(new Set(report.map((i: { fingerprint: string }) => i.fingerprint)).size).toBe(items.length);
      report.forEach((issue: { description: string }, i: number) => expect(issue.description).toBe(escapeControl(items[i].message || 'm')));
    }));
  });

  it('paths are relative to the project directory, with /', () => {
    expect(projectPath('a/b.json', `${cwd}/sub`, cwd)).toBe('sub/a/b.json');
    expect(projectPath('/other/b.json', cwd, cwd)).toBe('/other/b.json');
  });
});

describe('junit xml', () => {
  it('check: a suite per file, a case per code; errors fail, warnings fail only with strict; valid against junit.xsd', async () => {
    const text = '{"sources":[{"url":"nope"}],"connections":[{"tcp":{"cidrs":["0.0.0.0/1"],"ports":[443]}}]}';
    const results = [{ file: 'p.json', text, diagnostics: validate(text, { fileName: 'p.json' }).diagnostics }, { file: 'clean.json', text: '{}', diagnostics: [] }];
    const files = results.map((r) => ({ file: r.file, findings: [...diagnosticFindings([r])] }));
    const codes = new Set(files[0].findings.map((f) => f.code));
    for (const strict of [false, true]) {
      const xml = junitXml('netpolicy check', checkSuites(files, strict));
      expect(await junitErrors(xml)).toEqual([]);
      const cases = [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"/g)].map((m) => `${m[2]} ${m[1]}`);
      expect(cases).toEqual([...[...codes].map((c) => `p.json ${c}`), 'clean.json netpolicy check']);
      const failing = files[0].findings.filter((f) => f.level === 'error' || (strict && f.level === 'warning')).map((f) => f.code);
      expect(Number(/<testsuites [^>]*failures="(\d+)"/.exec(xml)![1])).toBe(new Set(failing).size);
    }
  });

  it('the XSD rejects what a JUnit reader would not take', async () => {
    expect(await junitErrors('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"/></testsuite></testsuites>')).not.toEqual([]);
    expect(await junitErrors('<testsuites><testsuite name="a" tests="-1" failures="0" errors="0"/></testsuites>')).not.toEqual([]);
    expect(await junitErrors('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" classname="y"><failure>x</failure><bogus/></testcase></testsuite></testsuites>')).not.toEqual([]);
  });

  it('hostile names and messages: well-formed, valid, and read back as their escaped text', async () => {
    await fc.assert(fc.asyncProperty(hostileText, hostileText, hostileText, async (name, message, detail) => {
      const suites: JUnitSuite[] = [{ name, cases: [{ name, classname: message, failure: { message, type: name, lines: [detail, message] } }, { name: detail, classname: 'c', output: [message] }] }];
      const xml = junitXml(name, suites);
      expect(await junitErrors(xml)).toEqual([]);
      const attr = /<failure message="([^"]*)"/.exec(xml)![1];
      const visible = escapeControl(message).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
      expect(xmlUnescape(attr)).toBe(visible);
    }), { numRuns: 60 });
  });

  it('xmlText escapes the five markup characters and forbidden characters', () => {
    expect(xmlText(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(xmlText('\u0001\ufffe\ud800x')).toBe('\\u0001\\ufffe\\ud800x');
    expect(xmlText('😀')).toBe('😀');
  });
});

describe('job summary markdown', () => {
  it('mdText keeps outside text as text: no HTML, no links, no table break', () => {
    expect(mdText('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert\\(1\\)&gt;');
    expect(mdText('a|b *c* [l](https://x.example) `d`')).toBe('a\\|b \\*c\\* \\[l\\]\\(https:&#8203;//x.example\\) \\`d\\`');
    expect(mdText('line\nbreak')).toBe('line\\\\nbreak');
  });

  it('mdCode fences any backtick run and escapes |', () => {
    expect(mdCode('a`b``c')).toBe('```a`b``c```');
    expect(mdCode('`x')).toBe('`` `x ``');
    expect(mdCode('a|b')).toBe('`a\\|b`');
  });

  it('any text makes one table row with the right number of cells', () => {
    fc.assert(fc.property(fc.array(hostileText, { minLength: 1, maxLength: 4 }), (texts) => {
      const table = boundedTable({ head: ['A', 'B'], rows: [[mdText(texts.join('')), mdCode(texts[0])]], noun: ['row', 'rows'], seeAll: 'x' });
      const rows = table.split('\n').filter((l) => l.startsWith('|'));
      expect(rows).toHaveLength(3);
      // Cells split on unescaped `|` (GFM), with code spans counted as text.
      const cells = rows[2].replace(/\\\|/g, '').split('|').length - 2;
      expect(cells).toBe(2);
      // No HTML outside code spans (inside them `<` is literal text).
      expect(mdText(texts.join(''))).not.toMatch(/</);
    }));
  });

  it('bounds the table: 20 rows open, 480 collapsed, the rest counted', () => {
    const findings = Array.from({ length: 600 }, (_, i) => finding({ message: `m${i}`, level: i % 2 ? 'warning' : 'error' }));
    const md = findingsSummary({ title: 'netpolicy check', counts: countLevels(findings), findings, seeAll: 'the log' });
    expect(md).toContain('**300 errors, 300 warnings**');
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Level'));
    expect(rows).toHaveLength(500);
    expect(md).toContain('<summary>480 more findings</summary>');
    expect(md).toContain('… and 100 more findings not listed here: see the log.');
    const small = findingsSummary({ title: 't', counts: countLevels([]), findings: [], seeAll: 'x' });
    expect(small).toBe('## t\n\n**0 errors, 0 warnings** ✅\n');
  });
});
