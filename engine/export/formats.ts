/** The export formats of /prepare_download, with the file extension and content type of each. */
export const EXPORT_FORMATS = ['csv', 'json', 'xlsx', 'sdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  sdf: 'chemical/x-mdl-sdfile',
} as const satisfies Record<ExportFormat, string>;

/** A column of an export: its header and the kind of its cells (typed XLSX cells, unquoted JSON numbers). */
export interface ExportColumn {
  name: string;
  type: 'string' | 'number' | 'boolean';
}

/** One cell; null (or NaN for numbers) is an empty cell. */
export type ExportValue = string | number | boolean | null;
