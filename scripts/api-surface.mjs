// The public surface of the library packages, read from their sources with the TypeScript
// compiler API: every export of each published entry (LIBRARY_ENTRIES, the `exports` of each
// package.json), re-exports followed to the declaration they name. Used by
//  - packages/*/test/api-comments.test.ts: every export has a TSDoc comment (here or at its re-export);
//  - scripts/api-reference.mjs: the signature list (docs/reference/api-surface.txt) that tells
//    whether the committed reference (docs/reference/**, TypeDoc) is stale, without regenerating it.
//
// node scripts/api-surface.mjs [--undocumented]   prints the signature list (or the exports without a comment)
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { INTERNAL_ENTRIES, LIBRARY_ENTRIES } from './package-types.mjs';

const root = new URL('..', import.meta.url).pathname;

/** The import specifier of an entry: `@netpolicy/core`, `@netpolicy/language-server/protocol`. */
export function entrySpecifier(pkg, entry) {
  return entry === 'index' ? `@netpolicy/${pkg}` : `@netpolicy/${pkg}/${entry}`;
}

/** The source file of an entry. */
export function entrySource(pkg, entry) {
  return join(root, 'packages', pkg, 'src', `${entry}.ts`);
}

/**
 * Each published entry of `packages` for library users: `{ pkg, entry, specifier, file }`. The
 * entries for the other netpolicy packages only (INTERNAL_ENTRIES: `@netpolicy/core/internal`)
 * are left out: they have no reference pages.
 */
export function libraryEntries(packages = Object.keys(LIBRARY_ENTRIES)) {
  return packages.flatMap((pkg) => LIBRARY_ENTRIES[pkg].map((entry) => ({
    pkg, entry, specifier: entrySpecifier(pkg, entry), file: entrySource(pkg, entry),
  }))).filter((e) => !INTERNAL_ENTRIES.has(e.specifier));
}

/**
 * One program over the entries of `packages`, with the compiler options of
 * scripts/api-reference.tsconfig.json (TypeDoc's): the workspace's `@netpolicy/*` resolve to their
 * sources through tsconfig.base.json's `paths`. Core's generated modules
 * (packages/core/src/generated) must exist: `node esbuild.mjs` writes them.
 */
export function createApiProgram(packages = Object.keys(LIBRARY_ENTRIES)) {
  const configPath = join(root, 'scripts/api-reference.tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath), undefined, configPath);
  if (parsed.errors.length > 0) throw new Error(ts.flattenDiagnosticMessageText(parsed.errors[0].messageText, '\n'));
  return ts.createProgram({ rootNames: libraryEntries(packages).map((e) => e.file), options: parsed.options });
}

/** The text of a JSDoc node's comment, trimmed ('' when it has only tags or nothing). */
function jsDocText(doc) {
  if (!ts.isJSDoc(doc)) return '';
  return (ts.getTextOfJSDocComment(doc.comment) ?? '').trim();
}

/** Whether a declaration carries a JSDoc comment with words in it. */
function hasDoc(decl) {
  if (ts.getJSDocCommentsAndTags(decl).some((d) => jsDocText(d) !== '')) return true;
  // `/** ... */ export { x } from './y'`: the comment of a re-export naming one binding is that binding's.
  if (ts.isExportSpecifier(decl)) {
    const statement = decl.parent.parent;
    if (decl.parent.elements.length === 1 && (statement.jsDoc ?? []).some((d) => jsDocText(d) !== '')) return true;
  }
  return false;
}

const KINDS = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Namespace, 'namespace'],
];

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** Whether a class member is part of the public surface (not private, protected or #private). */
function isPublicMember(member) {
  const decl = member.valueDeclaration ?? member.declarations?.[0];
  if (!decl) return true;
  if (decl.name && ts.isPrivateIdentifier(decl.name)) return false;
  return (ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** The members of an object type as `name?: type` (the public ones only, for classes). */
function membersOf(checker, type, at, keep = () => true) {
  return checker.getPropertiesOfType(type).filter((p) => isPublicMember(p) && keep(p)).map((p) => {
    const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
    return `${p.name}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FORMAT)}`;
  });
}

/** An export's declared shape as one line, printed by the checker. */
function signatureOf(checker, symbol, kind, at) {
  if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, at);
    return type.getCallSignatures().map((s) => checker.signatureToString(s, at, FORMAT)).join(' & ');
  }
  if (kind === 'class') {
    const statics = checker.getTypeOfSymbolAtLocation(symbol, at);
    const constructors = statics.getConstructSignatures().map((s) => `new ${checker.signatureToString(s, at, FORMAT)}`);
    // Static members the class declares (not those inherited, such as Error.captureStackTrace).
    const own = new Set(symbol.declarations ?? []);
    const staticMembers = membersOf(checker, statics, at, (p) => (p.declarations ?? []).some((d) => own.has(d.parent)))
      .map((m) => `static ${m}`);
    const instance = membersOf(checker, checker.getDeclaredTypeOfSymbol(symbol), at);
    return `{ ${[...constructors, ...staticMembers, ...instance].join('; ')} }`;
  }
  if (kind === 'const' || kind === 'enum' || kind === 'namespace' || kind === 'other') {
    return checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, at), at, FORMAT);
  }
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  if (kind === 'interface') {
    const calls = type.getCallSignatures().map((s) => checker.signatureToString(s, at, FORMAT));
    return `{ ${[...calls, ...membersOf(checker, type, at)].join('; ')} }`;
  }
  return checker.typeToString(type, at, FORMAT | ts.TypeFormatFlags.InTypeAlias);
}

/**
 * The comments a reference page shows for an export: every JSDoc in its declarations and at its
 * re-exports, members included, function bodies left out (a change inside a body changes no page).
 */
function commentsOf(declarations) {
  const texts = [];
  const visit = (node) => {
    for (const doc of node.jsDoc ?? []) texts.push(doc.getText());
    if (ts.isBlock(node) || ts.isClassStaticBlockDeclaration(node)) return;
    ts.forEachChild(node, visit);
  };
  for (const decl of declarations) {
    visit(decl);
    if (ts.isExportSpecifier(decl)) for (const doc of decl.parent.parent.jsDoc ?? []) texts.push(doc.getText());
    else if (ts.isVariableDeclaration(decl)) for (const doc of decl.parent.parent.jsDoc ?? []) texts.push(doc.getText());
  }
  return texts;
}

/**
 * Every export of each entry (`{ pkg, entry, specifier, file }`, default: those of every library
 * package): `{ pkg, entry, specifier, name, kind, documented, where, signature, comments }`, by entry
 * then by name. `documented`: a JSDoc comment with words in it at the declaration or at one of the
 * re-exports that lead to it. `where`: the declaration's file:line, relative to the repository.
 * `signature`: its type as one line; `comments`: a hash of its comments (members included).
 */
export function apiSurface({ entries = libraryEntries(), program } = {}) {
  program ??= ts.createProgram({ rootNames: entries.map((e) => e.file), options: {} });
  const checker = program.getTypeChecker();
  const out = [];
  for (const { pkg, entry, specifier, file: fileName } of entries) {
    const file = program.getSourceFile(fileName);
    if (!file) throw new Error(`${specifier}: ${fileName} is not in the program`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    const exports = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
    const rows = [];
    for (const exported of exports) {
      const declarations = [];
      let symbol = exported;
      // Each re-export step: a comment at any of them documents the export.
      for (let hops = 0; symbol.flags & ts.SymbolFlags.Alias && hops < 64; hops++) {
        declarations.push(...(symbol.declarations ?? []));
        const next = checker.getImmediateAliasedSymbol(symbol);
        if (!next || next === symbol) break;
        symbol = next;
      }
      if (!(symbol.flags & ts.SymbolFlags.Alias)) declarations.push(...(symbol.declarations ?? []));
      const target = symbol.declarations?.[0] ?? declarations[0] ?? file;
      const kind = KINDS.find(([flag]) => symbol.flags & flag)?.[1] ?? 'other';
      const sf = target.getSourceFile();
      const line = sf.getLineAndCharacterOfPosition(target.getStart(sf)).line + 1;
      rows.push({
        pkg, entry, specifier, name: exported.name, kind,
        documented: declarations.some(hasDoc),
        where: `${relative(root, sf.fileName)}:${line}`,
        // A type the declaration's file cannot name is printed as import("/abs/path").Name: keep the name.
        signature: signatureOf(checker, symbol, kind, target).replace(/import\("[^"]*"\)\./g, ''),
        comments: createHash('sha256').update(commentsOf(declarations).join('\n')).digest('hex').slice(0, 10),
      });
    }
    rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out.push(...rows);
  }
  return out;
}

/**
 * The signature list (docs/reference/api-surface.txt): one line per export,
 * `specifier name kind #comments: signature`.
 */
export function signatureList(rows) {
  return rows.map((r) => `${r.specifier} ${r.name} ${r.kind} #${r.comments}: ${r.signature}`).join('\n') + '\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = apiSurface({ program: createApiProgram() });
  if (process.argv.includes('--undocumented')) {
    for (const r of rows.filter((r) => !r.documented)) console.log(`${r.specifier} ${r.name} (${r.kind}) ${r.where}`);
  } else {
    process.stdout.write(signatureList(rows));
  }
}
