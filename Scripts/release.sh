#!/usr/bin/env bash
# Builds the release artifact: a relocatable Linux tarball of mr-replay and mr-collector, with the
# Swift runtime linked in (--static-swift-stdlib), and its SHA-256 checksum.
#
#   Scripts/release.sh [--output DIR] [--allow-dirty]
#
# Writes DIR/mr-replay-VERSION-linux-ARCH.tar.gz and DIR/mr-replay-VERSION-linux-ARCH.tar.gz.sha256
# (default DIR: dist/). The tarball holds one directory of that name:
#
#   bin/mr-replay, bin/mr-collector     the binaries; they run from wherever the directory is put
#   Config/replay.yaml, Samples/         the quick start's config and sample events
#   README.md, docs/, deploy/            the documentation and the deployment files
#   RUNTIME-LIBRARIES                    the Debian packages of the C libraries the binaries load
#
# The binaries need no Swift toolchain; they load the Debian libraries named in RUNTIME-LIBRARIES
# (deploy/Containerfile installs that list). The list is read off the binaries as built (ldd, then
# dpkg -S for the package of each library), plus ca-certificates for https; debug info is
# stripped (the symbols stay, for backtraces). A dirty work tree is refused
# (the version names a commit), unless --allow-dirty; without git (a source tarball), the commit
# is read from BUILD_COMMIT, else reported "unknown".
#
# The script checks its own output before it writes the checksum: it unpacks the tarball into a
# fresh directory elsewhere, runs both binaries from there, and fails if either does not start or
# still loads a Swift library from the toolchain.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/dist"; ALLOW_DIRTY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --output) OUT="$(mkdir -p "$2" && cd "$2" && pwd)"; shift ;;
    --allow-dirty) ALLOW_DIRTY=1 ;;
    *) echo "usage: Scripts/release.sh [--output DIR] [--allow-dirty]" >&2; exit 2 ;;
  esac
  shift
done
cd "$ROOT"
if [ -d .git ] && [ "$ALLOW_DIRTY" = 0 ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "release.sh: the work tree has uncommitted changes; commit them or pass --allow-dirty" >&2
  exit 2
fi
for pkg in libyaml-dev libsqlite3-dev zlib1g-dev libdeflate-dev libzstd-dev libjq-dev libssl-dev pkg-config; do
  dpkg -s "$pkg" > /dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq libyaml-dev libsqlite3-dev zlib1g-dev libdeflate-dev libzstd-dev libjq-dev libssl-dev pkg-config > /dev/null; break; }
done

BUILD=(swift build -c release --static-swift-stdlib)
"${BUILD[@]}" --product mr-replay
"${BUILD[@]}" --product mr-collector
BIN="$("${BUILD[@]}" --show-bin-path)"

VERSION="$("$BIN/mr-replay" --version | sed -n 's/^mr-replay \([^ ]*\) .*/\1/p')"
ARCH="$(uname -m)"
NAME="mr-replay-$VERSION-linux-$ARCH"
STAGE="$(mktemp -d)"; CHECK="$(mktemp -d)"
trap 'rm -rf "$STAGE" "$CHECK"' EXIT
mkdir -p "$STAGE/$NAME/bin"
install -m 0755 "$BIN/mr-replay" "$BIN/mr-collector" "$STAGE/$NAME/bin/"
strip --strip-debug "$STAGE/$NAME/bin/mr-replay" "$STAGE/$NAME/bin/mr-collector"
cp -R README.md docs deploy Config Samples "$STAGE/$NAME/"
# The package of every shared library the binaries load (the dynamic loader's own excepted),
# found by the library's file name in the multiarch directory (usrmerge: dpkg may know the file
# under /lib or /usr/lib).
libraries="$(ldd "$STAGE/$NAME/bin/mr-replay" "$STAGE/$NAME/bin/mr-collector" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)"
{
  for library in $libraries; do
    file="$(basename "$(readlink -f "$library")")"
    package="$(dpkg -S "*/$(uname -m)-linux-gnu/$file" 2> /dev/null | head -n1 | cut -d: -f1)"
    [ -n "$package" ] || { echo "release.sh: no Debian package owns $library" >&2; exit 1; }
    echo "$package"
  done
  echo ca-certificates
} | sort -u > "$STAGE/$NAME/RUNTIME-LIBRARIES"
mkdir -p "$OUT"
# Sorted names, fixed owner and the commit's time: the same commit gives the same tar stream.
MTIME="@$(git log -1 --format=%ct 2> /dev/null || date +%s)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$MTIME" -C "$STAGE" -cf - "$NAME" | gzip -n -9 > "$OUT/$NAME.tar.gz"

# The check: unpacked elsewhere, both binaries start, and no Swift library is loaded from a toolchain.
tar -xzf "$OUT/$NAME.tar.gz" -C "$CHECK"
for tool in mr-replay mr-collector; do
  "$CHECK/$NAME/bin/$tool" --version > /dev/null
  if ldd "$CHECK/$NAME/bin/$tool" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' >&2; then
    echo "release.sh: $tool still loads the Swift libraries above" >&2
    exit 1
  fi
done
(cd "$CHECK/$NAME" && ./bin/mr-replay run --dry-run --output /dev/null --config Config/replay.yaml Samples/events.ndjson 2> /dev/null) \
  || { echo "release.sh: the unpacked mr-replay could not dry-run the sample" >&2; exit 1; }
(cd "$OUT" && sha256sum "$NAME.tar.gz" > "$NAME.tar.gz.sha256")
echo "$OUT/$NAME.tar.gz"
cat "$OUT/$NAME.tar.gz.sha256"
