import { redactSecrets } from "@svc/core";

/** How a check of the doctor came out: `warn` does not fail the run; `skip` when an earlier failure rules it out. */
export type DoctorStatus = "pass" | "warn" | "fail" | "skip";

/** One check of the doctor: what was checked, how it came out, what was found, and what to do about it. */
export interface DoctorCheck {
  /**
   * `runtime` (only when it fails), `keys`, `base URL`, `server`, `credentials`, `clock`, `OTLP endpoint`,
   * `tracer provider`, `span export`, `model spans`, `OTLP defaults`.
   */
  name: string;
  status: DoctorStatus;
  /** What was found, in one line; never a secret. */
  detail: string;
  /** What to do, for a check that did not pass. */
  fix?: string;
}

/** What the doctor found: every check in order, and whether none failed. */
export interface DoctorReport {
  /** True when no check failed (warnings and skipped checks do not count). */
  ok: boolean;
  checks: DoctorCheck[];
  /** The report as printed by `svc doctor`: a heading, one line per check, and a summary line. */
  toString(): string;
}

const NAME_WIDTH = 16;

/** Builds the report of a run; `heading` is its first line. */
export function doctorReport(heading: string, checks: DoctorCheck[]): DoctorReport {
  const ok = checks.every((c) => c.status !== "fail");
  return {
    ok,
    checks,
    toString: () => [redactSecrets(heading), ...checks.map(checkLine), summaryLine(checks)].join("\n"),
  };
}

/** `FAIL  credentials      HTTP 401 from ...: unknown key. Fix: ...`: one line, secrets redacted. */
function checkLine(check: DoctorCheck): string {
  const detail = check.detail.replace(/\.$/, "");
  const fix = check.fix && check.status !== "pass" ? `. Fix: ${sentence(check.fix)}` : "";
  return redactSecrets(`${check.status.toUpperCase()}  ${check.name.padEnd(NAME_WIDTH)} ${detail}${fix}`);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? "" : "."}`;
}

function summaryLine(checks: DoctorCheck[]): string {
  const count = (status: DoctorStatus) => checks.filter((c) => c.status === status).length;
  const failed = count("fail");
  const parts = [`${count("pass")} passed`];
  if (count("warn") > 0) parts.push(`${count("warn")} with a warning`);
  if (failed > 0) parts.push(`${failed} failed`);
  if (count("skip") > 0) parts.push(`${count("skip")} skipped`);
  return `${failed > 0 ? "Problems found" : "No problem found"}: ${parts.join(", ")}.`;
}
