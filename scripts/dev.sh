#!/usr/bin/env bash
# Project entry point: installs the pinned toolchain locally, then runs a task.
#   bash scripts/dev.sh demo    set up, build, run the quickstart demo
#   bash scripts/dev.sh test    set up, build, run every check and test
#   bash scripts/dev.sh pack    set up, build, pack the four packages and the codemod into packs/ (for apps, from a clone)
#   bash scripts/dev.sh <cmd>   run any command with the local toolchain on PATH (e.g. pnpm bench)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/toolchain.sh
source "$root/scripts/toolchain.sh"
ensure_toolchain

task="${1:-}"
[ $# -gt 0 ] && shift
case "$task" in
  setup)
    pnpm install --frozen-lockfile
    pnpm build
    ;;
  demo)
    pnpm install --frozen-lockfile
    pnpm build
    pnpm demo "$@"
    ;;
  test)
    pnpm install --frozen-lockfile
    pnpm check "$@"
    ;;
  pack)
    pnpm install --frozen-lockfile
    pnpm build
    node scripts/pack.ts "$@"
    ;;
  "")
    echo "usage: bash scripts/dev.sh demo|test|pack|setup|<command...>" >&2
    exit 2
    ;;
  *)
    "$task" "$@"
    ;;
esac
