/** Public surface of engine/export: the job result file and the streaming export writers. */
export {
  EXPORT_FORMATS,
  EXPORT_CONTENT_TYPES,
  type ExportFormat,
  type ExportColumn,
  type ExportValue,
} from './formats.ts';
export {
  exportStream,
  csvStream,
  jsonStream,
  sdfStream,
  xlsxStream,
  type ExportOptions,
  type RowSource,
} from './writers.ts';
export {
  JOB_RESULT_FORMAT,
  PROPERTY_KEYS,
  BASE_COLUMNS,
  allocJobResult,
  encodeJobResult,
  decodeJobResult,
  type JobResult,
} from './job-result.ts';
export {
  SCORE_COLUMNS_3D,
  METADATA_QUERY_3D,
  type JobResult3d,
  type Query3dMetadata,
} from './job-result-3d.ts';
export { resultView, inRange, type ResultFilter, type ResultView } from './result-view.ts';
export {
  xlsxWriterStream,
  excelText,
  columnLetters,
  XLSX_MAX_ROWS,
  XLSX_MAX_COLUMNS,
  XLSX_MAX_CELL_CHARS,
  TRUNCATED_NOTE,
  type XlsxOptions,
} from './xlsx-writer.ts';
export { ExportLimitError, EXPORT_ERROR_CODES, type ExportErrorCode } from './export-errors.ts';
