#!/usr/bin/env bash
# Builds and runs a package that depends on the Keychain product, as a new user's package would,
# where no pkg-config file for libclang exists (Debian ships none): the build needs no set-up step
# and must print no error. secgen runs in its build through the plugin and finds the libclang the
# Swift toolchain ships.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root" "$work/keychain-bridge"
cp -R "$root/Tests/Integration/KeychainConsumer" "$work/consumer"

# pkg-config sees every system .pc file but libclang's.
mkdir "$work/pkgconfig"
for directory in $(pkg-config --variable pc_path pkg-config 2>/dev/null | tr ':' ' '); do
  for file in "$directory"/*.pc; do
    [ -e "$file" ] && [ "$(basename "$file")" != libclang.pc ] && ln -sf "$file" "$work/pkgconfig/"
  done
done
export PKG_CONFIG_LIBDIR="$work/pkgconfig" PKG_CONFIG_PATH=""
if pkg-config --exists libclang 2>/dev/null; then echo "check-keychain-consumer: libclang.pc is still visible"; exit 1; fi

cd "$work/consumer"
if ! swift build >"$work/build.log" 2>&1; then
  cat "$work/build.log"; echo "check-keychain-consumer: the consumer package did not build"; exit 1
fi
if grep -E "(error|warning):" "$work/build.log" | grep -v "/.build/checkouts/"; then
  echo "check-keychain-consumer: the build printed errors or warnings"; exit 1
fi
KEYCHAIN_BRIDGE_HOME="$work/store" swift run -q KeychainConsumer
echo "check-keychain-consumer: passed"
