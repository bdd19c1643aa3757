/** A skipped or todo test of a jest JSON report. */
export interface Skip {
  file: string;
  name: string;
  status: string;
}
/** Every skipped or todo test of a jest JSON report that the allow-list does not name. */
export function unexpectedSkips(report: unknown, allowList: unknown): Skip[];
