#!/usr/bin/env bash
# Copies Apple's seven Security headers secgen is checked against (issue 66) out of a clone of
# apple-oss-distributions/Security into FOLDER, at the tag the tests were written for:
#   scripts/apple-headers.sh CLONE FOLDER
#   KEYCHAIN_BRIDGE_APPLE_HEADERS=FOLDER swift test --filter AppleSDKHeaders
# Another project's code: never committed here, and not fetched by `make test` (CI has no network).
set -euo pipefail
clone=${1:?usage: scripts/apple-headers.sh CLONE FOLDER}
folder=${2:?usage: scripts/apple-headers.sh CLONE FOLDER}
tag=Security-61901.0.87.0.1
mkdir -p "$folder"
for path in base/SecBase.h keychain/headers/SecItem.h keychain/headers/SecKey.h keychain/headers/SecIdentity.h \
  trust/headers/SecCertificate.h trust/headers/SecTrust.h trust/headers/SecPolicy.h; do
  git -C "$clone" show "$tag:$path" >"$folder/$(basename "$path")" 2>/dev/null \
    || git -C "$clone" show "HEAD:$path" >"$folder/$(basename "$path")"
done
echo "apple-headers: $(ls "$folder" | wc -l) headers in $folder"
