/** Readers of the CI formats for tests: the runner's workflow-command grammar, the published schemas. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { validateXML } from 'xmllint-wasm';

export interface WorkflowCommand { command: string; properties: Record<string, string>; message: string }

const unescapeData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
const unescapeProperty = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

/**
 * A line as the GitHub Actions runner reads it (actions/runner, ActionCommand.TryParseV2): trimmed;
 * a command when it starts with `::` and has a second `::`; `name key=value,key=value` before it
 * (properties split on `,`, each on its first `=`), the message after; `%XX` unescaped.
 * Undefined for a line that is not a command.
 */
export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  const input = line.trim();
  if (!input.startsWith('::')) return undefined;
  const end = input.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = input.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  const properties: Record<string, string> = {};
  if (space >= 0) {
    for (const pair of info.slice(space + 1).trim().split(',').filter(Boolean)) {
      const eq = pair.indexOf('=');
      if (eq > 0) properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
    }
  }
  return { command, properties, message: unescapeData(input.slice(end + 2)) };
}

/** The lines of a log as the runner splits them (.NET ReadLine: `\n`, `\r`, `\r\n`). */
export function logLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Every line of a log that the runner would run as a command, honouring `::stop-commands::TOKEN`
 * (commands off until a line `::TOKEN::`).
 */
export function runnerCommands(text: string): WorkflowCommand[] {
  const out: WorkflowCommand[] = [];
  let stopped: string | undefined;
  for (const line of logLines(text)) {
    const c = parseWorkflowCommand(line);
    if (stopped !== undefined) {
      if (line.trim() === `::${stopped}::`) stopped = undefined;
      continue;
    }
    if (!c) continue;
    if (c.command === 'stop-commands') stopped = c.message;
    out.push(c);
  }
  return out;
}

const schemaDir = fileURLToPath(new URL('./schemas/', import.meta.url));

const ajv = new Ajv({ allErrors: true, strict: false });
const codeQuality = ajv.compile(JSON.parse(readFileSync(`${schemaDir}gitlab-code-quality.schema.json`, 'utf8')));

/** Ajv's errors of a Code Quality report against the schema written from GitLab's field table (none: valid). */
export function codeQualityErrors(report: unknown): string[] {
  return codeQuality(report) ? [] : (codeQuality.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const junitXsd = readFileSync(`${schemaDir}junit.xsd`, 'utf8');

/** libxml2's errors of a JUnit XML document against junit.xsd (none: well-formed and valid). */
export async function junitErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: junitXsd }] });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}

/** The text of an XML attribute value or element content as an XML reader gives it back (the entities we write). */
export function xmlUnescape(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_m, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name]!);
}
