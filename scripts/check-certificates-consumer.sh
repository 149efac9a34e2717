#!/usr/bin/env bash
# Builds and runs a package that depends on KeychainBridge and swift-certificates, proving that
# swift-certificates' `#if canImport(Security)` code compiles against our Security module.
# Security is built first so that the module exists when X509 is compiled (canImport is decided
# then; in a single parallel build the order would be up to the scheduler).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$root" "$work/keychain-bridge"
cp -R "$root/Tests/Integration/CertificatesConsumer" "$work/consumer"
cd "$work/consumer"
swift build --target Security -q
swift build -q
grep -q "canImport(Security)" "$(find .build/checkouts/swift-certificates/Sources/X509 -name Certificate.swift)"
swift run -q CertificatesConsumer
