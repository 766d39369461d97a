#!/usr/bin/env node
// The `svc` command, run as `npx @svc/client doctor`. Its code is built into dist/; this file is part of the source, so that a package manager that
// links the command before the first build (as pnpm does in a fresh clone of the repository) finds it.
import "../dist/cli.js";
