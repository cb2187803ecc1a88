#!/usr/bin/env bash
# Build the real `llama-server` and llama.cpp's RPC worker `rpc-server` (GGML_RPC=ON; the
# upstream target is ggml-rpc-server) from the llama.cpp source that the npm package
# node-llama-cpp bundles (package/llama/gitRelease.bundle), and cache both outside the
# checkout, side by side in one bin/, keyed by that source's version plus a build-flavour
# suffix. Integration tests and CI use them through SVC_LLAMA_SERVER=<path>.
#
# Needs only the npm registry (for `npm pack`); nothing else is downloaded: no web UI, no
# libcurl, no OpenSSL. Run with --help for usage.
set -euo pipefail

# The one place to bump the llama.cpp source.
NODE_LLAMA_CPP_VERSION=3.22.1

PROG=$(basename "$0")
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_ROOT=${SVC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/svc}
NPM_DIR=$CACHE_ROOT/npm
SERVER_DIR=$CACHE_ROOT/llama-server
TARBALL=$NPM_DIR/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz
KEY_FILE=$NPM_DIR/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.key
JOBS=${SVC_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}
# Appended to the cache key: an entry built before rpc-server was part of the build (same
# source, no GGML_RPC) has another directory, so it is never taken for a complete one.
FLAVOUR=rpc

# CMake configuration. Only the llama-server and ggml-rpc-server targets are built.
#  - GGML_RPC on: llama-server gets --rpc (layers on remote workers) and rpc-server is built.
#    GGML_RPC_RDMA off: the RDMA transport would link libibverbs when the build host has it;
#    plain TCP keeps the binaries glibc-only (see below) and is what svc checks and documents.
#  - UI off, prebuilt UI off: the web UI would need npm-building or a Hugging Face download;
#    the server runs without it (GET / has no UI, the API is unaffected).
#  - OpenSSL off: no libssl dependency; the server only listens on plain HTTP on localhost.
#    (LLAMA_CURL no longer exists in this source; it is deprecated and ignored, so not passed.)
#  - GGML_NATIVE off: no -march=native, so a cached binary also runs on another x86-64 CPU
#    than the one that built it; ggml then enables its portable baseline instead
#    (SSE4.2, AVX, AVX2, FMA, F16C, BMI2, i.e. x86-64-v3; any x86-64 server CPU since ~2015).
#  - OpenMP off: ggml uses its own thread pool, so no libgomp.so is needed at run time.
#  - static libs, -static-libgcc -static-libstdc++: the binary needs only glibc
#    (libc, libm, ld-linux), nothing else from the system.
CMAKE_ARGS=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DLLAMA_BUILD_COMMON=ON
  -DLLAMA_BUILD_TOOLS=ON
  -DLLAMA_BUILD_SERVER=ON
  -DLLAMA_BUILD_TESTS=OFF
  -DLLAMA_BUILD_EXAMPLES=OFF
  -DLLAMA_BUILD_APP=OFF
  -DLLAMA_BUILD_UI=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_OPENSSL=OFF
  -DGGML_NATIVE=OFF
  -DGGML_OPENMP=OFF
  -DGGML_RPC=ON
  -DGGML_RPC_RDMA=OFF
  "-DCMAKE_EXE_LINKER_FLAGS=-static-libgcc -static-libstdc++"
)

usage() {
  cat <<EOF
Usage: scripts/$PROG [--print-path | --print-rpc-path | --check | --help]

Build llama-server and rpc-server (llama.cpp's RPC worker, GGML_RPC=ON) from the llama.cpp
source bundled in node-llama-cpp@$NODE_LLAMA_CPP_VERSION and cache them outside the checkout:
  \$SVC_CACHE_DIR (default \${XDG_CACHE_HOME:-\$HOME/.cache}/svc)
    npm/node-llama-cpp-<version>.tgz          the npm tarball (source of the build)
    llama-server/<version>-<tag>-<head12>-$FLAVOUR/bin/llama-server
    llama-server/<version>-<tag>-<head12>-$FLAVOUR/bin/rpc-server

  (no option)       build if not cached (several minutes on 2 cores), then print llama-server's
                    path as the last line of stdout; all build output goes to stderr.
  --print-path      print the path llama-server has or would have; exit 0 whether or not it exists.
  --print-rpc-path  the same for rpc-server (it sits beside llama-server, in the same bin/).
  --check           exit 0 if both cached binaries exist and run, 1 otherwise.
  --help            this text.

Environment: SVC_CACHE_DIR (cache root), SVC_BUILD_JOBS (parallel jobs, default nproc).
Use: SVC_LLAMA_SERVER="\$(scripts/$PROG)" npm test
EOF
}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }

MODE=build
case "${1:-}" in
  '') ;;
  --print-path) MODE=print ;;
  --print-rpc-path) MODE=print-rpc ;;
  --check) MODE=check ;;
  -h|--help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

# require_tools TOOL... : each as "command:apt-package" or "cmd1|cmd2:apt-package".
require_tools() {
  local spec cmds pkg found c missing=()
  local -a alts
  for spec in "$@"; do
    cmds=${spec%%:*}
    pkg=${spec#*:}
    found=
    IFS='|' read -r -a alts <<<"$cmds"
    for c in "${alts[@]}"; do
      if command -v "$c" >/dev/null 2>&1; then found=$c; break; fi
    done
    if [ -z "$found" ]; then
      missing+=("$pkg")
      log "missing tool: ${cmds//|/ or } (Debian: apt-get install $pkg)"
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    die "install the missing tools first: apt-get install ${missing[*]}"
  fi
}

# Fetch the npm tarball into the cache (once per version); atomic, safe to race.
fetch_tarball() {
  [ -s "$TARBALL" ] && return 0
  require_tools npm:npm tar:tar gzip:gzip
  mkdir -p "$NPM_DIR"
  local tmp
  tmp=$(mktemp -d "$NPM_DIR/.tmp-pack-XXXXXX")
  log "downloading node-llama-cpp@$NODE_LLAMA_CPP_VERSION from the npm registry"
  # npm prints the file name on stdout; keep stdout for the result only.
  if ! (cd "$REPO_ROOT" && npm pack "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" \
          --pack-destination "$tmp" --loglevel=error) >&2; then
    rm -rf "$tmp"
    return 1
  fi
  if [ ! -s "$tmp/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" ]; then
    rm -rf "$tmp"
    log "npm pack did not produce node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz"
    return 1
  fi
  mv -f "$tmp/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" "$TARBALL"
  rm -rf "$tmp"
}

# Compute the cache key from the tarball's contents: <version>-<llama.cpp tag>-<bundle HEAD[:12]>.
# Cached next to the tarball, so it is computed once per version.
compute_key() {
  if [ -s "$KEY_FILE" ] && [ -s "$TARBALL" ]; then
    KEY=$(cat "$KEY_FILE")
    [ -n "$KEY" ] && return 0
  fi
  fetch_tarball || return 1
  require_tools tar:tar gzip:gzip
  local tmp tag head
  tmp=$(mktemp -d "$NPM_DIR/.tmp-key-XXXXXX")
  if ! tar -xzf "$TARBALL" -C "$tmp" package/llama/llama.cpp.info.json package/llama/gitRelease.bundle; then
    rm -rf "$tmp"
    log "cannot read llama/llama.cpp.info.json and llama/gitRelease.bundle from $TARBALL"
    return 1
  fi
  tag=$(sed -n 's/.*"tag"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$tmp/package/llama/llama.cpp.info.json" | head -n1)
  # The bundle header is text: a signature line, then "<sha> <ref>" lines, then a blank line.
  head=$(head -c 65536 "$tmp/package/llama/gitRelease.bundle" | LC_ALL=C tr -d '\000' \
          | LC_ALL=C sed -n '2,/^$/{s/^\([0-9a-f]\{40,64\}\) HEAD$/\1/p;}' | head -n1)
  if [ -z "$head" ]; then
    head=$(head -c 65536 "$tmp/package/llama/gitRelease.bundle" | LC_ALL=C tr -d '\000' \
            | LC_ALL=C sed -n '2,/^$/{s/^\([0-9a-f]\{40,64\}\) .*/\1/p;}' | head -n1)
  fi
  rm -rf "$tmp"
  [ -n "$tag" ] || { log "no llama.cpp tag in llama.cpp.info.json"; return 1; }
  [ -n "$head" ] || { log "cannot read the HEAD commit of gitRelease.bundle"; return 1; }
  tag=${tag//[^A-Za-z0-9._-]/_}
  KEY="$NODE_LLAMA_CPP_VERSION-$tag-${head:0:12}"
  local t
  t=$(mktemp "$NPM_DIR/.tmp-key-XXXXXX")
  printf '%s\n' "$KEY" >"$t"
  chmod 644 "$t"
  mv -f "$t" "$KEY_FILE"
}

binary_runs() {
  [ -x "$1" ] && "$1" --version >/dev/null 2>&1
}

# rpc-server has no --version; its --help exits 0 with a usage naming --port.
rpc_runs() {
  [ -x "$1" ] || return 1
  local out
  out=$("$1" --help 2>&1 </dev/null) || return 1
  [[ $out == *--port* ]]
}

# Both binaries of an entry: neither is used without the other.
entry_runs() {
  binary_runs "$1/bin/llama-server" && rpc_runs "$1/bin/rpc-server"
}

# ---------------------------------------------------------------------------

if [ "$MODE" = check ]; then
  if ! compute_key; then
    log "cannot determine the cache key"
    exit 1
  fi
  ENTRY=$SERVER_DIR/$KEY-$FLAVOUR
  if entry_runs "$ENTRY"; then
    log "ok: $ENTRY/bin/llama-server, $ENTRY/bin/rpc-server"
    exit 0
  fi
  log "not built (or does not run): $ENTRY/bin/llama-server, $ENTRY/bin/rpc-server"
  exit 1
fi

compute_key || die "cannot determine the cache key"
ENTRY=$SERVER_DIR/$KEY-$FLAVOUR
BIN=$ENTRY/bin/llama-server
RPC_BIN=$ENTRY/bin/rpc-server

if [ "$MODE" = print ]; then
  printf '%s\n' "$BIN"
  exit 0
fi
if [ "$MODE" = print-rpc ]; then
  printf '%s\n' "$RPC_BIN"
  exit 0
fi

# --- build ---------------------------------------------------------------

if entry_runs "$ENTRY"; then
  printf '%s\n' "$BIN"
  exit 0
fi

require_tools cmake:cmake 'g++|c++:g++' 'ninja|make:make' git:git tar:tar gzip:gzip
mkdir -p "$SERVER_DIR"

# One build at a time per cache root. A second run waits, then finds the finished entry.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_ROOT/llama-server.lock"
  if ! flock -n 9; then
    log "another build holds $CACHE_ROOT/llama-server.lock; waiting for it"
    flock 9
  fi
  HAVE_LOCK=1
  if entry_runs "$ENTRY"; then
    printf '%s\n' "$BIN"
    exit 0
  fi
  # With the lock held no other build is running: leftovers are from killed builds.
  rm -rf "$SERVER_DIR"/.tmp-* 2>/dev/null || true
else
  HAVE_LOCK=0
  log "flock not found (Debian: util-linux); building without a lock"
fi

if [ -e "$ENTRY" ]; then
  # An entry whose binaries do not run (e.g. copied from another machine): rebuild it.
  if [ "$HAVE_LOCK" = 1 ]; then
    log "removing broken cache entry $ENTRY"
    rm -rf "$ENTRY"
  else
    die "cache entry $ENTRY exists but its binaries do not run; remove it and run again"
  fi
fi

WORK=$(mktemp -d "$SERVER_DIR/.tmp-$KEY-XXXXXX")
CHILD=
cleanup() {
  if [ -n "$CHILD" ]; then
    # The child leads its own process group (setsid): stop cmake, ninja/make and compilers.
    kill -TERM -- "-$CHILD" 2>/dev/null || kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# run CMD...: runs in the background, in its own process group, and waits, so that a signal
# to this script is handled at once (the trap kills that group and removes the work dir).
SETSID=()
if command -v setsid >/dev/null 2>&1; then SETSID=(setsid); fi
run() {
  # 9>&-: the children must not inherit the lock, or an orphan of a killed run would hold it.
  "${SETSID[@]}" "$@" >&2 9>&- &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=
  return "$rc"
}

START=$(date +%s)
log "building llama-server and rpc-server $KEY-$FLAVOUR in $WORK (-j$JOBS)"
tar -xzf "$TARBALL" -C "$WORK" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
run git -c advice.detachedHead=false clone --quiet "$WORK/package/llama/gitRelease.bundle" "$WORK/src"

GENERATOR=()
if command -v ninja >/dev/null 2>&1; then GENERATOR=(-G Ninja); fi

run cmake -S "$WORK/src" -B "$WORK/build" "${GENERATOR[@]}" "${CMAKE_ARGS[@]}"
run cmake --build "$WORK/build" --config Release --target llama-server ggml-rpc-server -j "$JOBS"

BUILT=$WORK/build/bin/llama-server
BUILT_RPC=$WORK/build/bin/ggml-rpc-server
[ -x "$BUILT" ] || die "build finished but $BUILT is missing"
[ -x "$BUILT_RPC" ] || die "build finished but $BUILT_RPC is missing"
binary_runs "$BUILT" || die "built $BUILT but '$BUILT --version' fails"
rpc_runs "$BUILT_RPC" || die "built $BUILT_RPC but '$BUILT_RPC --help' fails"

mkdir -p "$WORK/entry/bin"
mv "$BUILT" "$WORK/entry/bin/llama-server"
# Installed under the name llama.cpp's docs and svc's (the llama-rpc provider) use.
mv "$BUILT_RPC" "$WORK/entry/bin/rpc-server"
cp "$WORK/src/LICENSE" "$WORK/entry/LICENSE" 2>/dev/null || true
{
  echo "node-llama-cpp: $NODE_LLAMA_CPP_VERSION"
  echo "llama.cpp: $(cat "$WORK/package/llama/llama.cpp.info.json" | tr -d '\n ')"
  echo "commit: $(git -C "$WORK/src" rev-parse HEAD)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm) in $(( $(date +%s) - START ))s"
  echo "compiler: $(c++ --version 2>/dev/null | head -n1)"
  echo "cmake: ${CMAKE_ARGS[*]}"
  echo "version: $("$WORK/entry/bin/llama-server" --version 2>&1 | grep -E '^(version|built with)' | tr '\n' ' ')"
} >"$WORK/entry/BUILD-INFO"

# Atomic publish: rename(2) of a complete directory. -T: fail rather than move into an
# existing directory (a concurrent lock-less build that finished first wins).
if ! mv -T "$WORK/entry" "$ENTRY" 2>/dev/null; then
  entry_runs "$ENTRY" || die "cannot move the build into $ENTRY"
  log "another build published $ENTRY first; using it"
fi

log "built in $(( $(date +%s) - START ))s: $BIN ($(du -h "$BIN" | cut -f1)), $RPC_BIN ($(du -h "$RPC_BIN" | cut -f1))"
printf '%s\n' "$BIN"
