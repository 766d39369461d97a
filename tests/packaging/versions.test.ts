import { manifestChecks } from "../support/manifest-checks.ts";
import { ROOT } from "../support/packages.ts";

manifestChecks(ROOT);
