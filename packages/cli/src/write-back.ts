/**
 * A policy that a command reads and then writes back (`check --fix`, `explain --apply`): read with
 * a snapshot of the file, and written over it only if the file is still what was read.
 */
import { closeSync, fstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { type FileSnapshot, OutputFile } from './output-file';
import { decodeText, MAX_TEXT_INPUT_BYTES, openInput, readBounded, readRegularText } from './read-file';
import { checkWriteBack } from './write-target';

/**
 * Reads a policy that a command will write back (`check --fix`, `explain --apply`), after
 * `checkWriteBack`: a regular file only, and a snapshot of it for `writeBack`.
 */
export function readForWriteBack(cwd: string, shown: string, option: string): FileSnapshot {
  const path = resolve(cwd, shown);
  checkWriteBack(cwd, shown, option);
  const fd = openInput(path, { regularOnly: true, shown, hint: `${option} writes the file back: name the policy file itself` });
  try {
    const stamp = fstatSync(fd, { bigint: true });
    const text = readRegularText(fd, shown, MAX_TEXT_INPUT_BYTES) ?? decodeText(readBounded(fd, shown), shown);
    return { text, stamp };
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` over a file read by `readForWriteBack`, unless it changed since (then nothing is written: UsageError). */
export function writeBack(cwd: string, shown: string, before: FileSnapshot, text: string): void {
  const out = new OutputFile(cwd, shown, { unchanged: before });
  try {
    out.write(text);
    out.commit();
  } finally {
    out.abort();
  }
}
