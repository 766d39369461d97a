# Sourced by scripts/dev.sh: installs Node 22 and pnpm from the npm registry into .tools/
# (git-ignored) and puts them first on PATH. Needs only a system npm, any version.
NODE_VERSION="22.23.3"
PNPM_VERSION="10.34.8"
# The other Node major the packed packages are tested on (tests/packaging), installed on demand by node_binary.
NODE24_VERSION="24.21.0"

toolchain_dir() { echo "${SVC_TOOLS_DIR:-$root/.tools}"; }

# Prints the platform part of the names of Node's binary packages on npm (node-<os>-<arch>).
node_platform() {
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "unsupported OS" >&2; return 1 ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) echo "unsupported CPU" >&2; return 1 ;; esac
  echo "$os-$arch"
}

# Installs Node <version> (default: NODE24_VERSION) into .tools/node-<version>/ the way ensure_toolchain installs
# Node 22, once, and prints the path of its node binary.
node_binary() {
  local version="${1:-$NODE24_VERSION}" dir platform tmp
  dir="$(toolchain_dir)/node-$version"
  if [ ! -f "$dir/.installed" ]; then
    platform="$(node_platform)" || return 1
    echo "Installing Node $version into $dir" >&2
    tmp="$dir.tmp-$$"
    rm -rf "$tmp" && mkdir -p "$tmp/bin"
    cat > "$tmp/package.json" <<JSON
{ "private": true, "dependencies": { "node-$platform": "$version" } }
JSON
    (cd "$tmp" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null) || { rm -rf "$tmp"; return 1; }
    ln -sf "../node_modules/node-$platform/bin/node" "$tmp/bin/node"
    touch "$tmp/.installed"
    rm -rf "$dir" && mv "$tmp" "$dir"
  fi
  echo "$dir/bin/node"
}

ensure_toolchain() {
  local dir os_arch stamp
  dir="$(toolchain_dir)"
  stamp="$dir/.installed-$NODE_VERSION-$PNPM_VERSION"
  if [ ! -f "$stamp" ]; then
    os_arch="$(node_platform)" || return 1
    echo "Installing Node $NODE_VERSION and pnpm $PNPM_VERSION into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir/bin"
    # node@22 ships its binary in a platform package that its own install script would add;
    # install scripts are skipped here, so the platform package is named directly.
    cat > "$dir/package.json" <<JSON
{ "private": true, "dependencies": { "node": "$NODE_VERSION", "node-$os_arch": "$NODE_VERSION", "pnpm": "$PNPM_VERSION" } }
JSON
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
    ln -sf "../node_modules/node-$os_arch/bin/node" "$dir/bin/node"
    printf '#!/bin/sh\nexec "%s/bin/node" "%s/node_modules/pnpm/bin/pnpm.cjs" "$@"\n' "$dir" "$dir" > "$dir/bin/pnpm"
    chmod +x "$dir/bin/pnpm"
    touch "$stamp"
  fi
  export PATH="$dir/bin:$root/node_modules/.bin:$PATH"
  export COREPACK_ENABLE_STRICT=0
  export npm_config_manage_package_manager_versions=false
}

# The runtimes the runtime matrix (tests/packaging/runtimes.test.ts) runs the packed packages in, from the npm
# registry: Bun, Deno, workerd through Miniflare, Vercel's edge-runtime, and playwright-core to drive Chromium.
RUNTIME_PACKAGES='"@oven/bun-linux-x64": "1.4.5", "deno": "2.9.6", "miniflare": "4.20260730.0", "edge-runtime": "4.0.1", "playwright-core": "1.65.1"'

# Installs RUNTIME_PACKAGES into .tools/runtimes-<hash>/ once (a second run finds them there) and prints that folder.
runtime_tools() {
  local key dir tmp
  key="$(printf '%s' "$RUNTIME_PACKAGES" | cksum | cut -d' ' -f1)"
  dir="$(toolchain_dir)/runtimes-$key"
  if [ ! -f "$dir/.installed" ]; then
    echo "Installing the test runtimes into $dir" >&2
    tmp="$dir.tmp-$$"
    rm -rf "$tmp" && mkdir -p "$tmp"
    printf '{ "private": true, "dependencies": { %s } }\n' "$RUNTIME_PACKAGES" > "$tmp/package.json"
    (cd "$tmp" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null) || { rm -rf "$tmp"; return 1; }
    touch "$tmp/.installed"
    rm -rf "$dir" && mv "$tmp" "$dir"
  fi
  echo "$dir"
}

# Makes sure a headless Chromium is at /usr/bin/chromium (Debian's package), installing it with apt-get when missing.
chromium_binary() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "Installing Chromium with apt-get" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium) >&2 || return 1
  fi
  echo /usr/bin/chromium
}
