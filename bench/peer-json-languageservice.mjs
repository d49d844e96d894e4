// The peer of `netpolicy check` as a whole process: vscode-json-languageservice validating one
// file with our policy schema (parse + schema validation), printing its diagnostics as JSON.
// Usage: node bench/peer-json-languageservice.mjs FILE
import { readFileSync } from 'node:fs';
import { getLanguageService } from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';

const root = new URL('..', import.meta.url).pathname;
const schema = JSON.parse(readFileSync(`${root}schemas/network-policy.schema.json`, 'utf8'));
const file = process.argv[2];
const text = readFileSync(file, 'utf8');
const ls = getLanguageService({});
ls.configure({ validate: true, schemas: [{ uri: schema.$id, fileMatch: ['*.json'], schema }] });
const doc = TextDocument.create(`file://${file}`, 'json', 1, text);
const diagnostics = await ls.doValidation(doc, ls.parseJSONDocument(doc), { schemaValidation: 'error' }, schema);
process.stdout.write(JSON.stringify({ diagnostics }) + '\n');
