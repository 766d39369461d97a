# Sourced by scripts/dev.sh: installs Node 22 and pnpm from the npm registry into .tools/
# (git-ignored) and puts them first on PATH. Needs only a system npm, any version.
NODE_VERSION="22.23.3"
PNPM_VERSION="10.34.8"

toolchain_dir() { echo "${SVC_TOOLS_DIR:-$root/.tools}"; }

ensure_toolchain() {
  local dir os arch stamp
  dir="$(toolchain_dir)"
  stamp="$dir/.installed-$NODE_VERSION-$PNPM_VERSION"
  if [ ! -f "$stamp" ]; then
    case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "unsupported OS" >&2; return 1 ;; esac
    case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) echo "unsupported CPU" >&2; return 1 ;; esac
    echo "Installing Node $NODE_VERSION and pnpm $PNPM_VERSION into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir/bin"
    # node@22 ships its binary in a platform package that its own install script would add;
    # install scripts are skipped here, so the platform package is named directly.
    cat > "$dir/package.json" <<JSON
{ "private": true, "dependencies": { "node": "$NODE_VERSION", "node-$os-$arch": "$NODE_VERSION", "pnpm": "$PNPM_VERSION" } }
JSON
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
    ln -sf "../node_modules/node-$os-$arch/bin/node" "$dir/bin/node"
    printf '#!/bin/sh\nexec "%s/bin/node" "%s/node_modules/pnpm/bin/pnpm.cjs" "$@"\n' "$dir" "$dir" > "$dir/bin/pnpm"
    chmod +x "$dir/bin/pnpm"
    touch "$stamp"
  fi
  export PATH="$dir/bin:$root/node_modules/.bin:$PATH"
  export COREPACK_ENABLE_STRICT=0
  export npm_config_manage_package_manager_versions=false
}
