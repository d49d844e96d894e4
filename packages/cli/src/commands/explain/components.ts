/**
 * `explain --sbom FILE`: each result's SBOM components (core's attribution, docs/attribution.md)
 * in the JSON, text and Markdown reports, and the denials counted per component.
 */
import { type ComponentMatch, type ExplainResult, type ParsedUrl, type SbomIndex } from '@netpolicy/core';
import { attributeParsed, clipped } from '@netpolicy/core/internal';

/** contracts.md names core's `name-only` match `name` in explain's JSON. */
const jsonMatch = (m: ComponentMatch['match']): string => (m === 'name-only' ? 'name' : m);

/** A component as one line: its purl, else `name@version`. Outside text: escaped and clipped. */
export function componentLabel(m: Pick<ComponentMatch, 'purl' | 'name' | 'version'>): string {
  return clipped(m.purl ?? (m.version !== undefined ? `${m.name}@${m.version}` : m.name), 300);
}

/** The contracts.md member order: purl, name, version, bomRef, match. */
function componentJson(m: ComponentMatch): string {
  let s = '{';
  if (m.purl !== undefined) s += `"purl":${JSON.stringify(m.purl)},`;
  s += `"name":${JSON.stringify(m.name)}`;
  if (m.version !== undefined) s += `,"version":${JSON.stringify(m.version)}`;
  if (m.bomRef !== undefined) s += `,"bomRef":${JSON.stringify(m.bomRef)}`;
  return `${s},"match":"${jsonMatch(m.match)}"}`;
}

/**
 * The JSON of answers core shares between accesses (frozen: a component matched alone), made
 * once each: every access of a trace is listed, and a job fetches a component many times.
 */
const sharedJson = new WeakMap<readonly ComponentMatch[], string>();

export function componentsJson(list: readonly ComponentMatch[]): string {
  if (list.length === 0) return '[]';
  const shared = Object.isFrozen(list);
  if (shared) {
    const known = sharedJson.get(list);
    if (known !== undefined) return known;
  }
  let s = '[';
  for (let i = 0; i < list.length; i++) s += (i ? ',' : '') + componentJson(list[i]);
  s += ']';
  if (shared) sharedJson.set(list, s);
  return s;
}

interface Tally {
  component: ComponentMatch;
  /** Model denials attributed to the component. */
  denied: number;
  /** Some of them fetched it by its purl or a distribution URL: a download of it was denied. */
  downloadDenied: boolean;
  order: number;
}

/** What a denial that fetched a component by its version or distribution URL is: a download. */
const isDownload = (m: ComponentMatch): boolean => m.match === 'purl' || m.match === 'distribution-url';

/**
 * Attribution for one explain pass: the index is the SBOM's (read once), the counts are the
 * pass's (a second pass after late DNS answers starts from `fresh()`).
 */
export class Attribution {
  private readonly denials = new Map<string, Tally>();
  /** Model denials that named no component. */
  unattributedDenials = 0;

  constructor(private readonly index: SbomIndex) {}

  fresh(): Attribution {
    return new Attribution(this.index);
  }

  /**
   * The components of a result's access (an SSH command's remote URL helps). `parsed`: its URL as
   * explain parsed it, when the caller has it (`Explainer.parsedUrl` in `onResult`).
   */
  of(r: ExplainResult, parsed?: ParsedUrl | null): readonly ComponentMatch[] {
    const access = r.access;
    if (access === undefined) return [];
    // An SSH git command's access (`ssh_git` observations): its remote URL, read from the observation.
    const remote = access.kind === 'ssh' ? (r.observation as { remoteUrl?: unknown }).remoteUrl : undefined;
    return attributeParsed(this.index, access, parsed, typeof remote === 'string' ? remote : undefined);
  }

  /** Counts a result; returns its components (the JSON report lists every result's). */
  add(r: ExplainResult, parsed?: ParsedUrl | null): readonly ComponentMatch[] {
    const list = this.of(r, parsed);
    if (r.model.verdict !== 'deny') return list;
    if (list.length === 0) { this.unattributedDenials++; return list; }
    for (const m of list) {
      const key = m.bomRef ?? m.purl ?? `${m.name}@${m.version ?? ''}`;
      let t = this.denials.get(key);
      if (t === undefined) this.denials.set(key, (t = { component: m, denied: 0, downloadDenied: false, order: this.denials.size }));
      t.denied++;
      if (isDownload(m)) t.downloadDenied = true;
    }
    return list;
  }

  /**
   * Counts a result, attributing only a model denial: what the text, Markdown and CI reports show
   * (their per-component counts, and the line under each denial shown, `textLine`). An allowed
   * access's components appear in no such report.
   */
  count(r: ExplainResult, parsed?: ParsedUrl | null): void {
    if (r.model.verdict === 'deny') this.add(r, parsed);
  }

  /** Components with denials, most denied first (then first denied first). */
  tallies(): Tally[] {
    return [...this.denials.values()].sort((a, b) => b.denied - a.denied || a.order - b.order);
  }

  /** `summary.components` and `summary.unattributedDenials` of the JSON report. */
  summaryJson(): string {
    const items = this.tallies().map((t) => {
      const c = componentJson(t.component);
      // The component's members without the match of one access, then its counts.
      return `${c.slice(0, c.lastIndexOf(',"match":'))},"denied":${t.denied},"downloadDenied":${t.downloadDenied}}`;
    });
    return `"components":[${items.join(',')}],"unattributedDenials":${this.unattributedDenials}`;
  }

  /** The text report's line under a denial: which components the access fetched. */
  textLine(r: ExplainResult): string {
    const list = this.of(r);
    if (list.length === 0) return 'component: none in the SBOM';
    return `component${list.length > 1 ? 's' : ''}: ${list.map((m) => `${componentLabel(m)} (${describeMatch(m.match)})`).join(', ')}`;
  }

  /** The text report's section: denials per component, downloads first marked. */
  textSection(): string[] {
    const t = this.tallies();
    if (t.length === 0 && this.unattributedDenials === 0) return [];
    const downloads = t.filter((x) => x.downloadDenied).length;
    const out = [`SBOM components with denied accesses: ${t.length} (${downloads} with a denied download)`, ''];
    for (const x of t) out.push(`  ${x.downloadDenied ? '✗' : '·'} ${componentLabel(x.component)}  ×${x.denied}${x.downloadDenied ? '  (download denied)' : ''}`);
    if (this.unattributedDenials) out.push(`  ${this.unattributedDenials} denied access${this.unattributedDenials === 1 ? '' : 'es'} named no component of the SBOM`);
    out.push('');
    return out;
  }

  /** The Markdown report's Component cell. */
  markdownCell(r: ExplainResult, md: (text: string) => string): string {
    return this.of(r).map((m) => `\`${md(componentLabel(m))}\` (${describeMatch(m.match)})`).join('<br>');
  }

  /** The Markdown report's section: components whose downloads were denied, and denials per component. */
  markdownSection(md: (text: string) => string): string[] {
    const t = this.tallies();
    if (t.length === 0) return [];
    const out = ['### SBOM components with denied accesses', '', '| Component | Denied | Download denied |', '|---|---|---|'];
    for (const x of t) out.push(`| \`${md(componentLabel(x.component))}\` | ${x.denied} | ${x.downloadDenied ? 'yes' : 'no'} |`);
    out.push('');
    if (this.unattributedDenials) out.push(`${this.unattributedDenials} denied access(es) named no component of the SBOM.`, '');
    return out;
  }
}

/** How a match reads in text: `purl`, `OCI digest`, `distribution URL`, `vcs URL`, `name only`. */
export function describeMatch(m: ComponentMatch['match']): string {
  switch (m) {
    case 'purl': return 'purl';
    case 'oci-digest': return 'OCI digest';
    case 'distribution-url': return 'distribution URL';
    case 'vcs-url': return 'vcs URL';
    case 'name-only': return 'name only';
  }
}
