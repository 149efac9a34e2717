#!/usr/bin/env bash
# Runs the Apple-style demo as a user would: the store location from KEYCHAIN_BRIDGE_HOME and the
# access groups from KEYCHAIN_BRIDGE_ACCESS_GROUPS. Checks its output, the store's permissions,
# and that a second process with another group cannot see an item the first one left behind.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
home=$(mktemp -d)/store
trap 'rm -rf "$(dirname "$home")"' EXIT
demo=$(cd "$root" && swift build --product apple-style-demo --show-bin-path)/apple-style-demo

output=$(KEYCHAIN_BRIDGE_HOME="$home" KEYCHAIN_BRIDGE_ACCESS_GROUPS="team.app, team.shared" "$demo")
echo "$output"
grep -q "adding it again: errSecDuplicateItem, as expected" <<<"$output"
grep -q "after delete: errSecItemNotFound" <<<"$output"
[ "$(stat -c %a "$home")" = 700 ] || { echo "store directory is not 0700"; exit 1; }
for file in keychain.db keychain.key; do
  [ "$(stat -c %a "$home/$file")" = 600 ] || { echo "$file is not 0600"; exit 1; }
done
# An access-group list with no group at all: every call must be refused with errSecMissingEntitlement.
if refused=$(KEYCHAIN_BRIDGE_HOME="$home" KEYCHAIN_BRIDGE_ACCESS_GROUPS="," "$demo" 2>&1); then
  echo "the demo ran with no access group"; exit 1
fi
grep -q -- "-34018" <<<"$refused" || { echo "expected errSecMissingEntitlement, got: $refused"; exit 1; }
echo "check-apple-program: passed"
