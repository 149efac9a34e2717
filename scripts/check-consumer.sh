#!/usr/bin/env bash
# Builds and runs Tests/Integration/Consumer, a package that depends on KeychainBridge as a user's
# would, where no pkg-config file for libclang exists (Debian ships none): the build needs no set-up
# step and must print no error or warning from our code. secgen runs in its build through the plugin
# and finds the libclang the Swift toolchain ships. Its executable, KeychainConsumer, uses the typed
# API. (swift-certificates' `#if canImport(Security)` code is compiled against Security in the
# project's own build: Tests/InteropTests.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root" "$work/keychain-bridge"
cp -R "$root/Tests/Integration/Consumer" "$work/consumer"

# pkg-config sees every system .pc file but libclang's.
mkdir "$work/pkgconfig"
for directory in $(pkg-config --variable pc_path pkg-config 2>/dev/null | tr ':' ' '); do
  for file in "$directory"/*.pc; do
    [ -e "$file" ] && [ "$(basename "$file")" != libclang.pc ] && ln -sf "$file" "$work/pkgconfig/"
  done
done
export PKG_CONFIG_LIBDIR="$work/pkgconfig" PKG_CONFIG_PATH=""
if pkg-config --exists libclang 2>/dev/null; then echo "check-consumer: libclang.pc is still visible"; exit 1; fi

cd "$work/consumer"
# In release, as a user ships it: a release build emits the metadata of an internal type only
# where something uses it, and Security finds its backend by its type's name (SecurityBackend.swift).
if ! swift build -c release >"$work/build.log" 2>&1; then
  cat "$work/build.log"; echo "check-consumer: the consumer package did not build"; exit 1
fi
if grep -E "(error|warning):" "$work/build.log" | grep -v "/.build/checkouts/"; then
  echo "check-consumer: the build printed errors or warnings"; exit 1
fi
# The executable runs from the build directory: `swift run` would plan the build again and rebuild
# part of it (about 20 s on a 2-core VM).
bin=$(swift build -c release --show-bin-path)
KEYCHAIN_BRIDGE_HOME="$work/store" "$bin/KeychainConsumer"
echo "check-consumer: passed"
