/**
 * A consistency report read back the way code-commit promises a
 * program can: split at the lines that are exactly one of the five section
 * headings of the prompt. Nothing else is recognised, so a report that only
 * this reader can split is one any script can split.
 *
 * @module
 */
import {
  REPORT_HEADINGS,
  type ReportHeading,
} from "../../lib/workflows/consistency_report/report.ts";

/** One section of a report. */
export interface ReportSection {
  /** The heading, in the prompt's spelling. */
  readonly heading: ReportHeading;
  /** The section's text, without its heading line and without blank lines at either end. */
  readonly text: string;
}

/** A report read back: what comes before the first heading, each section found, and the missing ones. */
export interface SplitReport {
  /** Text before the first heading, without blank lines at either end. */
  readonly preamble: string;
  /** The sections found, in prompt order; a heading given twice has its texts joined by a blank line. */
  readonly sections: readonly ReportSection[];
  /** The headings not found, in prompt order. */
  readonly missing: readonly ReportHeading[];
}

function trimBlankLines(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === "") start++;
  while (end > start && lines[end - 1].trim() === "") end--;
  return lines.slice(start, end).join("\n");
}

/** Splits `report` at its heading lines. */
export function splitReport(report: string): SplitReport {
  const found = new Map<ReportHeading, string[][]>();
  const preamble: string[] = [];
  let current = preamble;
  for (const line of report.split("\n")) {
    const heading = REPORT_HEADINGS.find((candidate) => candidate === line);
    if (heading === undefined) {
      current.push(line);
      continue;
    }
    current = [];
    found.set(heading, [...found.get(heading) ?? [], current]);
  }
  return {
    preamble: trimBlankLines(preamble),
    sections: REPORT_HEADINGS.filter((heading) => found.has(heading)).map((heading) => ({
      heading,
      text: found.get(heading)!.map(trimBlankLines).join("\n\n"),
    })),
    missing: REPORT_HEADINGS.filter((heading) => !found.has(heading)),
  };
}
