#!/usr/bin/env bash
# Builds and runs Tests/Integration/Consumer, a package that depends on KeychainBridge as a user's
# would, where no pkg-config file for libclang exists (Debian ships none): the build needs no set-up
# step and must print no error or warning from our code. secgen runs in its build through the plugin
# and finds the libclang the Swift toolchain ships.
# Its two executables: KeychainConsumer uses the typed API; CertificatesConsumer proves that
# swift-certificates' `#if canImport(Security)` code compiles against our Security module.
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
# Security is built first so that the module exists when X509 is compiled: canImport is decided
# then, and in a single parallel build the order would be up to the scheduler.
if ! { swift build --target Security && swift build; } >"$work/build.log" 2>&1; then
  cat "$work/build.log"; echo "check-consumer: the consumer package did not build"; exit 1
fi
if grep -E "(error|warning):" "$work/build.log" | grep -v "/.build/checkouts/"; then
  echo "check-consumer: the build printed errors or warnings"; exit 1
fi
grep -q "canImport(Security)" "$(find .build/checkouts/swift-certificates/Sources/X509 -name Certificate.swift)"
# The executables run from the build directory: `swift run` would plan the build again and rebuild
# part of it (about 20 s each on a 2-core VM).
bin=$(swift build --show-bin-path)
KEYCHAIN_BRIDGE_HOME="$work/store" "$bin/KeychainConsumer"
"$bin/CertificatesConsumer"
echo "check-consumer: passed"
