/**
 * `netpolicy.config.json` for `check`: found upward from each policy file (or named by
 * `--config FILE`), parsed by core's `parseProjectConfig`. A bad config file stops the run
 * (exit 2) with its positions; it is never silently ignored.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { LineIndex, parseProjectConfig, PROJECT_CONFIG_FILE, type PresetCatalog, type ProjectConfig } from '@netpolicy/core';
import { EXIT, UsageError } from './io';
import { readInput } from './report-output';
import { presetCatalogOption } from './presets-option';

export interface LoadedConfig {
  /** The config file, as found. */
  file: string;
  config: ProjectConfig;
  /** The catalog in force for files under this config (`--presets` wins over `presetCatalog`). */
  catalog: PresetCatalog;
}

export class ConfigFinder {
  private readonly byDir = new Map<string, LoadedConfig | undefined>();
  private readonly explicit: LoadedConfig | undefined;
  private readonly defaultCatalog: PresetCatalog;

  constructor(private readonly cwd: string, configFile: string | undefined, private readonly presetsFile: string | undefined) {
    this.defaultCatalog = presetCatalogOption(presetsFile);
    this.explicit = configFile === undefined ? undefined : this.load(configFile);
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
      if (existsSync(candidate) && !statSync(candidate).isDirectory()) { found = this.load(candidate); break; }
      if (dirname(d) === d) break;
    }
    for (const d of seen) this.byDir.set(d, found);
    return found;
  }

  private load(path: string): LoadedConfig {
    const text = readInput(path); // `-` reads stdin
    // Shown relative to the working directory when below it.
    const rel = relative(this.cwd, resolve(this.cwd, path));
    const file = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
    const { config, diagnostics } = parseProjectConfig(text, resolve(this.cwd, path));
    if (diagnostics.length > 0) {
      const lines = new LineIndex(text);
      // One line each (a message never carries line breaks of its own: they would be escaped).
      throw new UsageError(`${file} is not a valid netpolicy config:`, EXIT.usage, diagnostics.map((d) => {
        const p = lines.positionAt(d.offset);
        return `${file}:${p.line + 1}:${p.character + 1}: ${d.code}: ${d.message}`;
      }));
    }
    const catalog = this.presetsFile === undefined && config.presetCatalog !== undefined ? presetCatalogOption(config.presetCatalog) : this.defaultCatalog;
    return { file, config, catalog };
  }
}
