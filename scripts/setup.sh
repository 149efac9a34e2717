#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian 12 machine with the Swift toolchain:
# SQLite, OpenSSL and libclang development files, pkg-config, and a libclang.pc file (Debian ships
# none; secgen's system-library target finds libclang through it). Safe to run again.
set -euo pipefail

packages=(libsqlite3-dev libssl-dev libclang-dev pkg-config)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# libclang.pc, written from llvm-config so the paths match the installed LLVM. It gives only the
# include path: secgen loads libclang with dlopen at run time, so that a missing library is a clear
# message ("install libclang-dev") rather than a dynamic-loader failure before main.
llvm_config=$(command -v llvm-config || ls /usr/bin/llvm-config-* 2>/dev/null | sort -V | tail -n 1 || true)
if [ -n "$llvm_config" ] && { ! pkg-config --exists libclang 2>/dev/null || grep -q "written by KeychainBridge" "$(pkg-config --variable=pcfiledir libclang)/libclang.pc" 2>/dev/null; }; then
  pc_dir=/usr/local/lib/pkgconfig
  as_root mkdir -p "$pc_dir"
  as_root tee "$pc_dir/libclang.pc" >/dev/null <<PC
Name: libclang
Description: The C interface to Clang (written by KeychainBridge's setup from $llvm_config)
Version: $("$llvm_config" --version)
Cflags: -I$("$llvm_config" --includedir)
Libs:
PC
  echo "setup: wrote $pc_dir/libclang.pc"
fi
