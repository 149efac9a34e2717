#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian 12 machine with the Swift toolchain: SQLite and
# OpenSSL development files, tpm2-tss's (libtss2-dev: Secure Enclave keys on a TPM), pkg-config,
# PostgreSQL (the sync tests' servers), swtpm (the TPM tests' software TPM), tmux (the
# LocalAuthentication tests type a passphrase into a real terminal), libsystemd-dev (sd-bus, the
# Secret Service's D-Bus library) with dbus, secret-tool and Python's SecretStorage and keyring (the
# Secret Service tests' bus and clients) and pinentry-tty (GnuPG's prompt, an askpass kind),
# python3-pytest (keyring's own backend tests run against the agent), libsecret-1-dev and git (git's
# credential-libsecret, built from the contrib source git ships), openssl (the trust and import
# tests' reference), OpenSSH's client and server (the ssh-agent's tests), through apt-get (with
# sudo when not root). Nothing else
# is written outside the work tree: secgen finds the libclang that the Swift toolchain ships, so
# libclang-dev is optional. Safe to run again; does nothing when everything is installed.
set -euo pipefail

packages=(libsqlite3-dev libssl-dev libtss2-dev pkg-config postgresql swtpm swtpm-tools tmux libsystemd-dev dbus
  libsecret-tools python3-secretstorage python3-keyring python3-pytest pinentry-tty libsecret-1-dev git
  ca-certificates openssl openssh-client openssh-server)
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

# Earlier versions of this script wrote a libclang.pc of their own; it is no longer needed.
stale=/usr/local/lib/pkgconfig/libclang.pc
if [ -f "$stale" ] && grep -q "written by KeychainBridge" "$stale"; then
  as_root rm -f "$stale"
  echo "setup: removed $stale (no longer needed)"
fi
