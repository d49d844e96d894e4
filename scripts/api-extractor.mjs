// The API reports of the library packages (api/NAME.api.md, by API Extractor): the public surface
// of each published entry as its users get it, from the declarations npm pack publishes
// (packages/NAME/dist/dts, scripts/package-types.mjs), with each export's release tag (@public,
// @beta, @internal). The reports are committed, so a change to the surface shows in review as a
// change to api/*.api.md. `npm run release:check` compares them with the declarations it has just
// packed and fails when they differ; `npm run api:report` rewrites them.
//
// One report per entry: `@netpolicy/core` is api/core.api.md, `@netpolicy/core/internal` (the
// helpers the other netpolicy packages share, all @internal) api/core-internal.api.md. Not
// reported: `@netpolicy/language-server/node` (a program: it exports nothing) and the CLI (a
// program: its package.json names bins and no exports).
//
//   node scripts/api-extractor.mjs            build the declarations (tsc -b, package-types.mjs), compare the reports
//   node scripts/api-extractor.mjs --update   the same, and rewrite the reports that differ (npm run api:report)
//   --no-build                                use the declarations in packages/NAME/dist/dts as they are
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { LIBRARY_ENTRIES, writePackageTypes } from './package-types.mjs';

const root = new URL('..', import.meta.url).pathname;
export const REPORT_FOLDER = join(root, 'api');

/** Entries that are programs: nothing to report. */
const PROGRAMS = new Set(['language-server/node']);

/** Each reported entry: `{ pkg, entry, specifier, report }` (report: the file name in api/, without `.api.md`). */
export function reportedEntries() {
  return Object.entries(LIBRARY_ENTRIES).flatMap(([pkg, entries]) => entries
    .filter((entry) => !PROGRAMS.has(`${pkg}/${entry}`))
    .map((entry) => ({
      pkg,
      entry,
      specifier: entry === 'index' ? `@netpolicy/${pkg}` : `@netpolicy/${pkg}/${entry}`,
      report: entry === 'index' ? pkg : `${pkg}-${entry}`,
    })));
}

/**
 * API Extractor's messages: the ones about the surface go into the report (a change to them is a
 * change to the report, reviewed as such), compiler errors fail the run. TSDoc's own syntax
 * checks are off: the comments are written for TypeDoc (docs/reference), whose reading is checked
 * by packages/core/test/api-comments.test.ts.
 */
const MESSAGES = {
  compilerMessageReporting: { default: { logLevel: 'error' } },
  extractorMessageReporting: {
    default: { logLevel: 'warning', addToApiReportFile: true },
    // Core's internal entry: its names are internal by where they live, not by a leading underscore.
    'ae-internal-missing-underscore': { logLevel: 'none', addToApiReportFile: false },
    'ae-wrong-input-file-type': { logLevel: 'error' },
    // Which exports lack a comment is api-comments.test.ts' to say.
    'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: 'none' } },
};

/** The configuration of one entry's report; `temp`: where API Extractor writes the fresh report. */
function configOf({ pkg, entry, report }, temp) {
  const projectFolder = join(root, 'packages', pkg);
  const mainEntryPointFilePath = join(projectFolder, 'dist/dts', `${entry}.d.ts`);
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder,
      mainEntryPointFilePath,
      // The declarations as a consumer's compiler reads them: the other @netpolicy packages
      // through node_modules (the workspace links them), each from its published dist/dts.
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'],
            strict: true, types: ['node'], skipLibCheck: false,
          },
          files: [mainEntryPointFilePath],
        },
      },
      apiReport: { enabled: true, reportFileName: report, reportFolder: REPORT_FOLDER, reportTempFolder: temp },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: MESSAGES,
    },
    configObjectFullPath: join(root, 'scripts/api-extractor.json'),
    packageJsonFullPath: join(projectFolder, 'package.json'),
  });
}

/**
 * Runs API Extractor on every reported entry (declarations already in packages/NAME/dist/dts).
 * `update`: rewrite the reports that differ. Returns `{ lines, failures }`: one line per entry,
 * and a message per entry whose report differs (when not updating) or that API Extractor failed on.
 */
export function apiReports({ update = false } = {}) {
  const temp = mkdtempSync(join(tmpdir(), 'netpolicy-api-report-'));
  const lines = [];
  const failures = [];
  try {
    for (const e of reportedEntries()) {
      const messages = [];
      const result = Extractor.invoke(configOf(e, temp), {
        localBuild: update,
        messageCallback: (m) => {
          if (m.logLevel === 'none' || m.logLevel === 'verbose') { m.handled = true; return; }
          messages.push(`${m.logLevel} ${m.messageId}: ${m.text}${m.sourceFilePath ? ` (${relative(root, m.sourceFilePath)}:${m.sourceFileLine})` : ''}`);
          m.handled = true;
        },
      });
      const file = relative(root, join(REPORT_FOLDER, `${e.report}.api.md`));
      const changed = result.apiReportChanged;
      lines.push(`${e.specifier}: ${file} ${changed ? (update ? 'updated' : 'differs') : 'unchanged'}`);
      const problems = messages.filter((m) => !/ae-api-report-/.test(m) || !update);
      if (!result.succeeded || (!update && changed)) {
        failures.push(`${e.specifier}: ${changed && !update
          ? `the public surface changed and ${file} was not updated (npm run api:report, then review and commit the report)`
          : 'API Extractor failed'}${problems.length > 0 ? `\n${problems.join('\n')}` : ''}`);
      }
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return { lines, failures };
}

/** tsc -b of the library packages and their published declarations (what npm pack runs). */
function buildDeclarations() {
  const libraries = Object.keys(LIBRARY_ENTRIES);
  const r = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-b', ...libraries.map((p) => `packages/${p}`)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`tsc -b failed (exit ${r.status})`);
  for (const p of libraries) writePackageTypes(p);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (!args.includes('--no-build')) buildDeclarations();
  const { lines, failures } = apiReports({ update: args.includes('--update') });
  for (const l of lines) console.log(l);
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exitCode = failures.length > 0 ? 1 : 0;
}
