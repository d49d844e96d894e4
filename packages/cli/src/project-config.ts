/**
 * `netpolicy.config.json` for `check`: found upward from each policy file (or named by
 * `--config FILE`), parsed by core's `parseProjectConfig`. A bad config file stops the run
 * (exit 2) with its positions; it is never silently ignored. The upward search stops at the
 * repository root (the first folder holding `.git`) or the home folder: a config above them
 * (a stray one in `/tmp` or `/`) belongs to no project and would change verdicts unseen.
 */
import { existsSync, lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { LineIndex, parseProjectConfig, PROJECT_CONFIG_FILE, type PresetCatalog, type ProjectConfig } from '@netpolicy/core';
import { EXIT, MAX_SETTINGS_FILE_BYTES, readTextFile, UsageError } from './io';
import { readInput, shownName } from './report-output';
import { presetCatalogOption } from './presets-option';

export interface LoadedConfig {
  /** The config file, as shown (relative to the working directory when below it; `<stdin>` for `-`). */
  file: string;
  /** The config file's absolute path (`-` for standard input). */
  path: string;
  config: ProjectConfig;
  /** The catalog in force for files under this config (`--presets` wins over `presetCatalog`). */
  catalog: PresetCatalog;
}

export class ConfigFinder {
  private readonly byDir = new Map<string, LoadedConfig | undefined>();
  private readonly explicit: LoadedConfig | undefined;
  private readonly defaultCatalog: PresetCatalog;
  private readonly home: string | undefined;
  /** Every config in force so far, in the order found. */
  readonly used: LoadedConfig[] = [];

  constructor(private readonly cwd: string, configFile: string | undefined, private readonly presetsFile: string | undefined, home: string | undefined = safeHome()) {
    this.home = home ? resolve(home) : undefined;
    this.defaultCatalog = presetCatalogOption(presetsFile);
    this.explicit = configFile === undefined ? undefined : this.load(configFile, false);
  }

  /** The config in force for a file or folder: `--config`, else the nearest `netpolicy.config.json` upward. */
  forPath(path: string, isDirectory = false): LoadedConfig | undefined {
    if (this.explicit) return this.explicit;
    if (path === '-') return this.forDir(this.cwd);
    const full = resolve(this.cwd, path);
    return this.forDir(isDirectory ? full : dirname(full));
  }

  catalogFor(config: LoadedConfig | undefined): PresetCatalog {
    return config?.catalog ?? this.defaultCatalog;
  }

  private forDir(dir: string): LoadedConfig | undefined {
    const seen: string[] = [];
    let found: LoadedConfig | undefined;
    for (let d = dir; ; d = dirname(d)) {
      if (this.byDir.has(d)) { found = this.byDir.get(d); break; }
      seen.push(d);
      const candidate = join(d, PROJECT_CONFIG_FILE);
      if (existsSync(candidate) || isDanglingLink(candidate)) { found = this.load(candidate, true); break; }
      // The repository root or the home folder ends the search (after its own config).
      if (dirname(d) === d || d === this.home || existsSync(join(d, '.git'))) break;
    }
    for (const d of seen) this.byDir.set(d, found);
    return found;
  }

  /** `found`: a config found upward (a regular file only, never waited on); else one named by `--config` (may be `-`). */
  private load(path: string, found: boolean): LoadedConfig {
    const shownPath = path === '-' ? shownName(path) : path;
    // Shown relative to the working directory when below it.
    const rel = path === '-' ? '' : relative(this.cwd, resolve(this.cwd, path));
    const file = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : shownPath;
    const text = path === '-'
      ? readInput(path) // stdin, read once
      : readTextFile(resolve(this.cwd, path), {
        shown: file,
        limit: MAX_SETTINGS_FILE_BYTES,
        regularOnly: found,
        hint: `a ${PROJECT_CONFIG_FILE} must be a regular file: replace or remove it, or name a config with --config FILE`,
      });
    const { config, diagnostics } = parseProjectConfig(text, path === '-' ? resolve(this.cwd, PROJECT_CONFIG_FILE) : resolve(this.cwd, path));
    if (diagnostics.length > 0) {
      const lines = new LineIndex(text);
      // One line each (a message never carries line breaks of their own: they would be escaped).
      throw new UsageError(`${file} is not a valid netpolicy config:`, EXIT.usage, diagnostics.map((d) => {
        const p = lines.positionAt(d.offset);
        return `${file}:${p.line + 1}:${p.character + 1}: ${d.code}: ${d.message}`;
      }));
    }
    const catalog = this.presetsFile === undefined && config.presetCatalog !== undefined ? presetCatalogOption(config.presetCatalog, { fromConfig: file }) : this.defaultCatalog;
    const loaded = { file, path: path === '-' ? '-' : resolve(this.cwd, path), config, catalog };
    this.used.push(loaded);
    return loaded;
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function safeHome(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
