/**
 * The process edge of the CLI: streams, environment, exit codes, file reading and writing with clear errors.
 * The module the commands import; the code lives in exit-codes.ts, streams.ts, read-file.ts,
 * write-target.ts, output-file.ts and write-back.ts.
 */
export { EXIT, UsageError } from './exit-codes';
export { drained, exitWhenSettled, guardStandardStreams, internalError, paint, useColor, type Io, type PushbackOut } from './streams';
export {
  decodeText, fileKind, MAX_SETTINGS_FILE_BYTES, MAX_TEXT_INPUT_BYTES, openInput, readBounded, readFailure, readTextFile, type ReadOptions,
} from './read-file';
export { checkOutputTarget, checkWriteBack, throughProc, writeFailure } from './write-target';
export { OutputFile, writeOutput, type FileSnapshot } from './output-file';
export { readForWriteBack, writeBack } from './write-back';
