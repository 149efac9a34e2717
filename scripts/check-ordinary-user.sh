#!/usr/bin/env bash
# Every flow a user runs, run as an ordinary (non-root) user with real clients, end to end: the
# `security` tool and an Apple-API program on a store of their own (and on a passphrase store of
# their own, which asks to be unlocked), the agent (by hand, `auto`, a passphrase store unlocked
# with `unlock-keychain -p`), the Secret Service on a locked passphrase store with an askpass
# (secret-tool, Python's keyring and SecretStorage, git's credential-libsecret built from the git
# package's contrib source), keyring's own backend tests on the session collection, a relay at the
# agent's socket, the ssh-agent, and the Getting-started articles' command blocks run word for word.
#
# Run as root (CI), it creates the user `kb-ordinary` (or $KB_ORDINARY_USER; removed again at the
# end) and runs every flow as that user through runuser; run as an ordinary user, it runs them as
# that user, each in a home and runtime folder of its own under a temporary folder (never the
# user's own keychain).
#
# Usage: scripts/check-ordinary-user.sh [BIN_DIR]   (default: `swift build --show-bin-path`)
# The flows run /usr/bin/python3 (Debian's, with python3-keyring). Under CI=true a missing tool
# that `make test` installs is a failure, never a skip.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
built=${1:-$(cd "$root" && swift build --show-bin-path)}
docs=$root/Sources/Security/Security.docc

failed=0
passed=0
missing=()
for tool in runuser dbus-daemon secret-tool git gcc pkg-config ssh ssh-add ssh-keygen swtpm; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
/usr/bin/python3 -c 'import keyring, secretstorage, pytest' 2>/dev/null || missing+=("python3-keyring, python3-secretstorage or python3-pytest")
pkg-config --exists libsecret-1 2>/dev/null || missing+=("libsecret-1-dev")
[ -f /usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c ] || missing+=("git's contrib sources")
for program in security keychaind apple-style-demo protected-token-demo; do
  [ -x "$built/$program" ] || missing+=("$built/$program (swift build --product $program)")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "check-ordinary-user: FAIL: missing ${missing[*]} (make setup installs them)"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "check-ordinary-user: SKIPPED (visibly): missing ${missing[*]}; run make setup"
  exit 0
fi

work=$(mktemp -d /tmp/kb-ordinary.XXXXXX)
chmod 755 "$work"
if [ "$(id -u)" -eq 0 ]; then
  user=${KB_ORDINARY_USER:-kb-ordinary}
  # A user left by an interrupted run is removed first: its files and processes are this script's.
  if id "$user" >/dev/null 2>&1; then
    pkill -KILL -u "$user" 2>/dev/null
    userdel -r "$user" >/dev/null 2>&1
  fi
  useradd -m -s /bin/bash "$user" >/dev/null
  # Not locked, yet with no password: sshd lets such an account in by key alone.
  usermod -p '*' "$user"
else
  user=$(id -un)
fi

cleanup() {
  # Whatever a flow left running: the user's processes (the created user only), else every
  # process whose command line names this run's folder (the agents, buses and relays it started).
  if [ "$(id -u)" -eq 0 ]; then pkill -KILL -u "$user" 2>/dev/null; fi
  [ -f "$work/sshd/pid" ] && kill "$(cat "$work/sshd/pid")" 2>/dev/null
  pkill -KILL -f "$work" 2>/dev/null
  if [ "$(id -u)" -eq 0 ]; then userdel -r "$user" >/dev/null 2>&1; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The programs, side by side in one folder as `make install` puts them, and git's credential
# helper built from the contrib source Debian's git package ships (as a user builds it).
bin=$work/bin
mkdir -p "$bin" "$work/git-credential-libsecret"
for program in security keychaind apple-style-demo protected-token-demo; do
  install -m 0755 "$built/$program" "$bin/$program"
done
cp /usr/share/doc/git/contrib/credential/libsecret/* "$work/git-credential-libsecret/"
if ! make -s -C "$work/git-credential-libsecret" >"$work/git-credential-build.log" 2>&1; then
  cat "$work/git-credential-build.log"
  echo "check-ordinary-user: FAIL: git-credential-libsecret does not build"
  echo "0 passed, 1 failed"
  exit 1
fi
install -m 0755 "$work/git-credential-libsecret/git-credential-libsecret" "$bin/"
# keyring's own backend tests (keyring.testing ships with python3-keyring), as keyring's upstream
# tests/backends/test_SecretService.py runs them: against the session collection.
mkdir -p "$work/keyring-tests"
cat >"$work/keyring-tests/test_secret_service.py" <<'EOF'
from keyring.backends import SecretService
from keyring.testing.backend import BackendBasicTests


class TestSecretServiceKeyring(BackendBasicTests):
    def init_keyring(self):
        keyring = SecretService.Keyring()
        keyring.preferred_collection = '/org/freedesktop/secrets/collection/session'
        return keyring
EOF
chmod -R a+rX "$work"

# The Nth fenced block (from 1) of a DocC article, as a reader copies it, written to
# $work/blocks/NAME.sh for a flow to run. After a line that starts a program in the background
# (ends in `&`), the runner waits until the agent serves, as a person typing the next line would:
# the only line added to what the article says.
mkdir -p "$work/blocks"
article_block() {
  {
    echo 'kb_wait_for_agent() { for _ in $(seq 600); do [ -S "$XDG_RUNTIME_DIR/keychain-bridge/agent.sock" ] && return 0; sleep 0.1; done; return 1; }'
    echo 'set -e'
    awk -v wanted="$3" '
      /^```/ { if (inside) { inside = 0; if (count == wanted) exit; next } count++; inside = 1; next }
      inside && count == wanted { print; if ($0 ~ /&[[:space:]]*(#.*)?$/) print "kb_wait_for_agent" }
    ' "$2"
  } >"$work/blocks/$1.sh"
  grep -q . <(sed 1,2d "$work/blocks/$1.sh") || { echo "check-ordinary-user: $2 has no block ${3:-}"; exit 1; }
}
article_block agent-without-systemd "$docs/GettingStartedWithTheAgent.md" 5
article_block secret-service-first "$docs/SecretService.md" 1
article_block askpass-first-steps "$docs/GettingStartedWithAskpass.md" 2
article_block readme-secret-service "$root/README.md" "$(awk '/^```/ { n++ } /secret-tool store/ { print (n + 1) / 2; exit }' "$root/README.md")"
chmod -R a+rX "$work/blocks"

# What every flow's script starts with: strict mode, helpers, and the clean-up of what it started.
prelude() {
  cat <<'EOF'
set -euo pipefail
# Each command is logged (the log is shown when the flow fails).
PS4='+ line $LINENO: '
set -x
cd "$HOME"
socket="$XDG_RUNTIME_DIR/keychain-bridge/agent.sock"
# Until the agent's socket answers (its bus name is owned before the socket is made), at most 60 s.
kb_wait_for_agent() {
  for _ in $(seq 600); do
    if [ -S "${KB_SOCKET:-$socket}" ]; then return 0; fi
    sleep 0.1
  done
  echo "the agent did not start"; cat "$XDG_RUNTIME_DIR"/*.log 2>/dev/null; return 1
}
start_bus() {
  dbus-daemon --session --fork --address="unix:path=$XDG_RUNTIME_DIR/bus" --print-pid=3 3>"$XDG_RUNTIME_DIR/bus.pid"
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
}
expect() {  # expect ACTUAL EXPECTED WHAT
  if [ "$1" != "$2" ]; then echo "$3: expected '$2', got '$1'"; return 1; fi
}
stop_all() {
  kill $(jobs -p) 2>/dev/null || true
  pkill -f "$KB_BIN/keychaind" 2>/dev/null || true
  [ -f "$XDG_RUNTIME_DIR/bus.pid" ] && kill "$(cat "$XDG_RUNTIME_DIR/bus.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop_all EXIT
# An askpass (OpenSSH's convention) that answers the passphrase and counts what it was asked.
make_askpass() {
  printf '#!/bin/sh\necho "$*" >> "$HOME/asked"\nprintf "%%s\\n" "%s"\n' "$1" > "$HOME/askpass"
  chmod 700 "$HOME/askpass"
}
asked() { [ -f "$HOME/asked" ] && wc -l < "$HOME/asked" || echo 0; }
EOF
}

# Runs the script on standard input as the user, in a fresh home and runtime folder, and reports.
flow() {
  local name=$1 slug
  # KB_FLOWS (a grep -E pattern) runs only the flows it names, while working on one; the others
  # are said to be skipped.
  if [ -n "${KB_FLOWS:-}" ] && ! grep -qE "$KB_FLOWS" <<<"$name"; then
    cat >/dev/null
    echo "SKIP $name (KB_FLOWS)"
    return
  fi
  slug=$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '-' | cut -c1-40)
  local home=$work/homes/$slug run=$work/runs/$slug
  mkdir -p "$home" "$run"
  chmod 700 "$home" "$run"
  { prelude; cat; } >"$work/$slug.sh"
  chmod 644 "$work/$slug.sh"
  local environment=(HOME="$home" USER="$user" LOGNAME="$user" PATH="$bin:/usr/bin:/bin"
    XDG_RUNTIME_DIR="$run" LANG=C.UTF-8 KB_BIN="$bin" KB_WORK="$work" KB_SSH_PORT="${KB_SSH_PORT:-}")
  if [ "$(id -u)" -eq 0 ]; then
    chown -R "$user:" "$home" "$run"
    timeout 300 runuser -u "$user" -- env -i "${environment[@]}" bash "$work/$slug.sh" >"$work/$slug.log" 2>&1
  else
    timeout 300 env -i "${environment[@]}" bash "$work/$slug.sh" >"$work/$slug.log" 2>&1
  fi
  local status=$?
  if [ $status -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name (exit $status):"
    sed 's/^/    /' "$work/$slug.log" | tail -25
  fi
}

# OpenSSH's sshd on loopback, for the ssh-agent's logins: started as root (sshd needs it) with a
# configuration of its own that lets the test user in by key alone, from a file the user writes.
ssh_port=""
if [ "$(id -u)" -eq 0 ] && [ -x /usr/sbin/sshd ]; then
  mkdir -p "$work/sshd" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$work/sshd/host_key"
  : >"$work/sshd/authorized_keys"
  chown "$user:" "$work/sshd/authorized_keys"
  chmod 600 "$work/sshd/authorized_keys"
  ssh_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$work/sshd/config" <<EOF
Port $ssh_port
ListenAddress 127.0.0.1
HostKey $work/sshd/host_key
PidFile $work/sshd/pid
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile $work/sshd/authorized_keys
StrictModes no
AllowUsers $user
EOF
  if ! /usr/sbin/sshd -f "$work/sshd/config" -E "$work/sshd/log"; then
    echo "check-ordinary-user: FAIL: sshd did not start"
    cat "$work/sshd/log"
    failed=$((failed + 1))
    ssh_port=""
  fi
elif [ "${CI:-}" = true ]; then
  echo "check-ordinary-user: FAIL: sshd needs root and /usr/sbin/sshd (make setup installs openssh-server)"
  failed=$((failed + 1))
else
  echo "check-ordinary-user: SKIP the ssh logins: sshd needs root (run make test as root to include them)"
fi
export KB_SSH_PORT=$ssh_port

echo "check-ordinary-user: every flow as $user (uid $(id -u "$user")), not root"

flow "the security tool and an Apple-API program on a store of their own" <<'EOF'
[ "$(id -u)" -ne 0 ]
security add-generic-password -a alice -s svc -w s3cret
expect "$(security find-generic-password -a alice -s svc -w)" s3cret "find-generic-password -w"
apple-style-demo | grep -q "errSecDuplicateItem, as expected"
expect "$(stat -c %a "$HOME/.local/share/keychain-bridge")" 700 "the store's folder"
expect "$(stat -c %a "$HOME/.local/share/keychain-bridge/keychain.db")" 600 "the store's database"
EOF

flow "Getting started with the agent, without systemd, word for word" <<'EOF'
source "$KB_WORK/blocks/agent-without-systemd.sh"
set +e
# The article's promise: one lock for every program, exit 36 for a WhenUnlocked read.
security find-generic-password -a me -s svc -w
expect "$?" 36 "a read while the agent is locked"
set -e
security unlock-keychain </dev/null
expect "$(security find-generic-password -a me -s svc -w)" secret "a read through the agent"
# An Apple-API program in agent mode.
apple-style-demo | grep -q "errSecDuplicateItem, as expected"
EOF

flow "the agent started on demand (KEYCHAIN_BRIDGE_AGENT=auto)" <<'EOF'
export KEYCHAIN_BRIDGE_AGENT=auto
security add-generic-password -a alice -s auto -w started-on-demand
expect "$(security find-generic-password -a alice -s auto -w)" started-on-demand "a read through the started agent"
pgrep -u "$(id -u)" -f "$KB_BIN/keychaind --socket $socket" >/dev/null
[ -S "$socket" ]
apple-style-demo | grep -q "errSecDuplicateItem, as expected"
EOF

flow "a passphrase store through the agent, unlocked with unlock-keychain -p" <<'EOF'
security create-keychain -p "correct horse" "$HOME/.local/share/keychain-bridge"
keychaind --socket "$socket" 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
export KEYCHAIN_BRIDGE_AGENT="$socket"
status=0; security add-generic-password -a bob -s vault -w hidden 2>"$HOME/sealed" </dev/null || status=$?
expect "$status" 36 "an add while the store is sealed"
# The message names the agent and how to unlock it, not a variable the agent would never see.
grep -q "the keychain agent at $socket serves a locked passphrase store" "$HOME/sealed"
! grep -q KEYCHAIN_BRIDGE_PASSPHRASE "$HOME/sealed"
status=0; security unlock-keychain -p "wrong horse" 2>/dev/null || status=$?
[ "$status" -ne 0 ] || { echo "a wrong passphrase unlocked the store"; exit 1; }
security unlock-keychain -p "correct horse"
security lock-keychain
# Without a terminal, the askpass program the environment names asks.
make_askpass "correct horse"
KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" security unlock-keychain </dev/null
expect "$(asked)" 1 "askpass runs for unlock-keychain without a terminal"
security add-generic-password -a bob -s vault -w hidden
expect "$(security find-generic-password -a bob -s vault -w)" hidden "a read after unlock-keychain -p"
apple-style-demo | grep -q "errSecDuplicateItem, as expected"
EOF

flow "The Secret Service article's first block, word for word" <<'EOF'
start_bus
printf hunter2 | bash "$KB_WORK/blocks/secret-service-first.sh" >"$HOME/block.out"
expect "$(cat "$HOME/block.out")" hunter2 "security find-generic-password -w after secret-tool store"
EOF

flow "The README's Secret Service block, word for word" <<'EOF'
start_bus
bash "$KB_WORK/blocks/readme-secret-service.sh" >"$HOME/block.out"
expect "$(cat "$HOME/block.out")" hunter2 "security find-generic-password -w after the README's secret-tool store"
EOF

flow "the Secret Service on a locked passphrase store, with an askpass: secret-tool, keyring, git" <<'EOF'
security create-keychain -p "correct horse" "$HOME/.local/share/keychain-bridge"
make_askpass "correct horse"
start_bus
KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" keychaind --secret-service 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
# The first call finds the store sealed: secret-tool's Unlock prompts through the askpass.
printf hunter2 | secret-tool store --label=Mail service mail username alice
expect "$(asked)" 1 "prompts after secret-tool store"
expect "$(secret-tool lookup service mail username alice)" hunter2 "secret-tool lookup"
expect "$(python3 -c 'import keyring; print(keyring.get_password("mail", "alice"))')" hunter2 "Python's keyring"
# git's credential helper, from the contrib source: stores, then git reads it back.
printf 'protocol=https\nhost=git.example.com\nusername=bob\npassword=from-git\n\n' | git-credential-libsecret store
filled=$(printf 'protocol=https\nhost=git.example.com\nusername=bob\n\n' \
  | git -c credential.helper="$KB_BIN/git-credential-libsecret" credential fill)
grep -qx 'password=from-git' <<<"$filled" || { echo "git credential fill: $filled"; exit 1; }
# An item written by one client is read by the others.
python3 -c 'import keyring; keyring.set_password("api", "carol", "from-python")'
expect "$(secret-tool lookup service api username carol)" from-python "secret-tool reads keyring's item"
expect "$(python3 -c 'import keyring; print(keyring.get_password("git.example.com", "bob"))')" None "keyring and git's schema differ"
secret-tool search --all server git.example.com 2>&1 | grep -q 'secret = from-git'
# The administration tool reads what secret-tool stored, through the agent's socket.
expect "$(KEYCHAIN_BRIDGE_AGENT="$socket" security find-generic-password -s mail -a alice -w)" hunter2 "security reads secret-tool's item"
# Locked again: a search answers with locked items, and the lookup prompts, then answers.
KEYCHAIN_BRIDGE_AGENT="$socket" security lock-keychain
expect "$(secret-tool lookup service mail username alice)" hunter2 "a lookup after a lock"
expect "$(asked)" 2 "prompts after a lookup on a locked store"
# A new agent: the store is sealed again, and the first call, a lookup, prompts and answers.
stop_all; start_bus
KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" keychaind --secret-service 2>>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
expect "$(secret-tool lookup service mail username alice)" hunter2 "the first lookup on a sealed store"
expect "$(asked)" 3 "prompts after a lookup on a sealed store"
grep -q "wants to use" "$HOME/asked"
EOF

flow "a 1 MiB secret over a Diffie-Hellman session (SecretStorage)" <<'EOF'
start_bus
keychaind --secret-service 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
python3 - <<'PY'
import os, secretstorage
connection = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(connection)
secret = os.urandom(1 << 20)
item = collection.create_item('big', {'service': 'big', 'username': 'blob'}, secret)
assert item.get_secret() == secret, 'the secret read back differs'
try:
    collection.create_item('too big', {'service': 'big', 'username': 'over'}, secret + b'x')
except Exception as error:
    assert 'longer than 1 MiB' in str(error), error
else:
    raise SystemExit('a secret over 1 MiB was stored')
PY
EOF

flow "keyring's own backend tests, on the session collection" <<'EOF'
start_bus
keychaind --secret-service 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
cd "$KB_WORK/keyring-tests"
python3 -m pytest -q -p no:cacheprovider test_secret_service.py
# The session collection is the agent's memory: gone with the agent.
cd "$HOME"
python3 -c '
import secretstorage
c = secretstorage.Collection(secretstorage.dbus_init(), "/org/freedesktop/secrets/collection/session")
c.create_item("kept in memory", {"service": "session", "username": "s"}, b"ephemeral")'
stop_all; start_bus
keychaind --secret-service 2>>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
expect "$(secret-tool lookup service session username s || true)" "" "a session item after the agent restarted"
EOF

flow "the administration tool installed after the agent started, and a policy file" <<'EOF'
mkdir -p "$HOME/bin"
cp "$KB_BIN/keychaind" "$HOME/bin/keychaind"
start_bus
"$HOME/bin/keychaind" --secret-service 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
printf hunter2 | secret-tool store --label=Mail service mail username alice
cp "$KB_BIN/security" "$HOME/bin/security"
export KEYCHAIN_BRIDGE_AGENT="$socket"
expect "$("$HOME/bin/security" find-generic-password -s mail -a alice -w)" hunter2 "the tool installed after the start"
# With a policy file the built-in rule gives way: the tool gets a group of its own.
mkdir -p "$HOME/.config/keychain-bridge"
echo "/usr/bin/true = com.example.vault" > "$HOME/.config/keychain-bridge/agent-policy"
chmod 600 "$HOME/.config/keychain-bridge/agent-policy"
kill %1; wait %1 2>/dev/null || true
"$HOME/bin/keychaind" --secret-service 2>>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
status=0; "$HOME/bin/security" find-generic-password -s mail -a alice -w || status=$?
expect "$status" 44 "the tool's read with a policy file"
EOF

flow "a relay at the agent's socket gets nothing" <<'EOF'
keychaind --socket "$socket" 2>"$XDG_RUNTIME_DIR/agent.log" &
kb_wait_for_agent
export KEYCHAIN_BRIDGE_AGENT="$socket"
security add-generic-password -a alice -s relayed -w the-secret
cat > "$HOME/relay.py" <<'PY'
import ctypes, os, socket, sys, threading
real, path, capture, undumpable = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == 'yes'
if undumpable:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0, as keychaind does
os.rename(path, real)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(8)
open(path + '.ready', 'w').close()
def pump(source, target, log):
    while True:
        data = source.recv(65536)
        if not data: break
        if log: log.write(data); log.flush()
        target.sendall(data)
while True:
    client, _ = server.accept()
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    upstream.connect(real)
    threading.Thread(target=pump, args=(client, upstream, None), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, open(capture, 'ab')), daemon=True).start()
PY
# A relay as any program is (dumpable): the client sees its executable and sends it nothing.
python3 "$HOME/relay.py" "$socket.real" "$socket" "$HOME/answers" no &
relay=$!
for _ in $(seq 300); do [ -e "$socket.ready" ] && break; sleep 0.1; done
status=0; security find-generic-password -a alice -s relayed -w 2>"$HOME/refused" || status=$?
expect "$status" 53 "a read through a dumpable relay"
grep -q "not the keychain agent" "$HOME/refused"
kill $relay; wait $relay 2>/dev/null || true
mv "$socket.real" "$socket"; rm -f "$socket.ready"
# A relay that makes itself undumpable passes the client's check, but the agent cannot identify
# it and refuses it: no answer with the secret passes back through it.
python3 "$HOME/relay.py" "$socket.real" "$socket" "$HOME/answers" yes &
for _ in $(seq 300); do [ -e "$socket.ready" ] && break; sleep 0.1; done
status=0; security find-generic-password -a alice -s relayed -w >"$HOME/read" 2>/dev/null || status=$?
[ "$status" -ne 0 ] || { echo "a read through an undumpable relay succeeded"; exit 1; }
! grep -q the-secret "$HOME/answers" 2>/dev/null
grep -q "refused a caller" "$XDG_RUNTIME_DIR/agent.log"
EOF

flow "a program's own passphrase store asks once to be unlocked; a protected item on a key-file store is warned of" <<'EOF'
make_askpass "correct horse"
security create-keychain -p "correct horse" "$HOME/locked-store"
# The program opens the store itself, locked (no agent, no passphrase given): its first call asks.
KEYCHAIN_BRIDGE_HOME="$HOME/locked-store" KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" apple-style-demo >"$HOME/demo.out"
grep -q "errSecDuplicateItem, as expected" "$HOME/demo.out"
expect "$(asked)" 1 "prompts to unlock the program's store"
grep -q "^apple-style-demo wants to use a protected keychain item" "$HOME/asked"
# On the default key-file store a .userPresence token is stored, can never be read, and the add
# says so on standard error.
set +e
protected-token-demo >"$HOME/token.out" 2>"$HOME/token.err"
set -e
grep -q "stored the token with user presence" "$HOME/token.out"
grep -q "^KeychainBridge warning: an item asks for the user's presence" "$HOME/token.err"
EOF

flow "Getting started with askpass: the first steps, word for word" <<'EOF'
bash "$KB_WORK/blocks/askpass-first-steps.sh" >"$HOME/demo.out"
grep -q "first read: the token" "$HOME/demo.out"
grep -q "read after invalidate: refused" "$HOME/demo.out"
EOF

flow "keychaind as the ssh-agent: ssh-add, logins, ssh-keygen -Y, a restart without the key files" <<'EOF'
agent() {
  keychaind --socket "$socket" --ssh-agent "$XDG_RUNTIME_DIR/ssh/agent.sock" 2>>"$XDG_RUNTIME_DIR/agent.log" &
  agent_pid=$!
}
restart_agent() {
  kill "$agent_pid"
  wait "$agent_pid" 2>/dev/null || true
  agent
  KB_SOCKET="$XDG_RUNTIME_DIR/ssh/agent.sock" kb_wait_for_agent
}
agent
kb_wait_for_agent
KB_SOCKET="$XDG_RUNTIME_DIR/ssh/agent.sock" kb_wait_for_agent
export SSH_AUTH_SOCK="$XDG_RUNTIME_DIR/ssh/agent.sock"
mkdir -p "$HOME/keys"
for kind in "ed25519" "ecdsa -b 256" "ecdsa -b 384" "ecdsa -b 521" "rsa -b 3072"; do
  name=$(echo "$kind" | tr -d ' -')
  ssh-keygen -q -t $kind -N '' -C "key $name" -f "$HOME/keys/$name"
  ssh-add "$HOME/keys/$name"
done
expect "$(ssh-add -l | wc -l)" 5 "keys listed"
ssh-add -L | grep -q "key rsab3072$"
# A key too short for this agent, and a constraint it would not enforce, are refused.
ssh-keygen -q -t rsa -b 1024 -N '' -f "$HOME/keys/short"
! ssh-add "$HOME/keys/short" 2>/dev/null
! ssh-add -h example.com "$HOME/keys/ed25519" 2>/dev/null
echo "the message" > "$HOME/message"
for name in ed25519 ecdsab256 ecdsab384 ecdsab521 rsab3072; do
  ssh-keygen -Y sign -n file -f "$HOME/keys/$name.pub" "$HOME/message" 2>/dev/null
  echo "me $(cat "$HOME/keys/$name.pub")" > "$HOME/allowed"
  ssh-keygen -Y verify -f "$HOME/allowed" -I me -n file -s "$HOME/message.sig" < "$HOME/message" >/dev/null
  rm "$HOME/message.sig"
done
login() {  # login KEY: logs in to the loopback sshd with the agent's key whose public file is KEY
  [ -z "$KB_SSH_PORT" ] && return 0
  ssh -p "$KB_SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o IdentitiesOnly=yes -o IdentityFile="$1" -o LogLevel=ERROR "$USER@127.0.0.1" echo logged in
}
if [ -n "$KB_SSH_PORT" ]; then cat "$HOME"/keys/*.pub > "$KB_WORK/sshd/authorized_keys"; fi
for name in ed25519 ecdsab384 rsab3072; do
  chmod 600 "$HOME/keys/$name.pub"
  if [ -n "$KB_SSH_PORT" ]; then expect "$(login "$HOME/keys/$name.pub")" "logged in" "a login with $name"; fi
done
# The keys live in the keychain: the files gone and the agent restarted, they are still there.
mkdir -p "$HOME/public" && mv "$HOME"/keys/*.pub "$HOME/public/" && rm -f "$HOME"/keys/*
restart_agent
expect "$(ssh-add -l | wc -l)" 5 "keys listed after a restart"
if [ -n "$KB_SSH_PORT" ]; then expect "$(login "$HOME/public/ed25519.pub")" "logged in" "a login after a restart"; fi
# Locked with -x, the agent lists nothing and signs nothing until -X.
printf '#!/bin/sh\necho "lock words"\n' > "$HOME/lockpass" && chmod 700 "$HOME/lockpass"
SSH_ASKPASS="$HOME/lockpass" SSH_ASKPASS_REQUIRE=force ssh-add -x </dev/null 2>/dev/null
! ssh-add -l >/dev/null 2>&1
! ssh-keygen -Y sign -n file -f "$HOME/public/ed25519.pub" "$HOME/message" 2>/dev/null
SSH_ASKPASS="$HOME/lockpass" SSH_ASKPASS_REQUIRE=force ssh-add -X </dev/null 2>/dev/null
expect "$(ssh-add -l | wc -l)" 5 "keys listed after -X"
# -d removes one key, -D all.
ssh-add -d "$HOME/public/ecdsab521.pub" 2>/dev/null
expect "$(ssh-add -l | wc -l)" 4 "keys after -d"
# A policy that names the keys' group confines them: ssh may use them, ssh-keygen may not.
mkdir -p "$HOME/.config/keychain-bridge"
echo "$(readlink -f /usr/bin/ssh) = org.openssh.agent" > "$HOME/.config/keychain-bridge/agent-policy"
chmod 600 "$HOME/.config/keychain-bridge/agent-policy"
restart_agent
! ssh-keygen -Y sign -n file -f "$HOME/public/ed25519.pub" "$HOME/message" 2>/dev/null
expect "$(ssh-add -l || true)" "The agent has no identities." "keys as a program the policy does not name sees them"
! ssh-add -D 2>/dev/null
if [ -n "$KB_SSH_PORT" ]; then expect "$(login "$HOME/public/ed25519.pub")" "logged in" "ssh, which the policy names"; fi
rm "$HOME/.config/keychain-bridge/agent-policy"
restart_agent
expect "$(ssh-add -l | wc -l)" 4 "keys, the policy gone"
ssh-add -D 2>/dev/null
expect "$(ssh-add -l || true)" "The agent has no identities." "keys after -D"
EOF

flow "the ssh-agent's confirmation (-c) names the program and asks through the askpass; -t lapses" <<'EOF'
make_askpass "unused"
printf '#!/bin/sh\necho "$SSH_ASKPASS_PROMPT|$1" >> "$HOME/asked"\n[ "$(cat "$HOME/decision")" = allow ]\n' > "$HOME/askpass"
echo deny > "$HOME/decision"
KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" keychaind --socket "$socket" --ssh-agent "$XDG_RUNTIME_DIR/ssh/agent.sock" \
  2>"$XDG_RUNTIME_DIR/agent.log" &
KB_SOCKET="$XDG_RUNTIME_DIR/ssh/agent.sock" kb_wait_for_agent
export SSH_AUTH_SOCK="$XDG_RUNTIME_DIR/ssh/agent.sock"
ssh-keygen -q -t ed25519 -N '' -C "work key" -f "$HOME/work"
ssh-add -c "$HOME/work" 2>/dev/null
echo "the message" > "$HOME/message"
! ssh-keygen -Y sign -n file -f "$HOME/work.pub" "$HOME/message" 2>/dev/null
# The program that asked (ssh-keygen) and the one that started it (this shell), as "git (via ssh)".
grep -q "^confirm|bash (via ssh-keygen) wants to sign with the ssh key “work key” (SHA256:" "$HOME/asked"
echo allow > "$HOME/decision"
ssh-keygen -Y sign -n file -f "$HOME/work.pub" "$HOME/message" 2>/dev/null
expect "$(asked)" 2 "one question per signature"
# A key added for a second lapses: no longer listed once it has (the wait is bounded, not timed).
ssh-keygen -q -t ed25519 -N '' -C "brief" -f "$HOME/brief"
ssh-add -t 1 "$HOME/brief" 2>/dev/null
for _ in $(seq 600); do (ssh-add -l || true) | grep -q brief || break; sleep 0.1; done
! (ssh-add -l || true) | grep -q brief
EOF

flow "keys made in the keychain and in swtpm's TPM sign for ssh; a locked keychain asks to be unlocked; a pair confined" <<'EOF'
make_askpass "the keychain passphrase"
# A TPM of the user's own (Debian's swtpm), on loopback ports, for the Secure Enclave key.
tpm_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$HOME/tpm"
swtpm socket --tpm2 --tpmstate dir="$HOME/tpm" --server type=tcp,port="$tpm_port",bindaddr=127.0.0.1 \
  --ctrl type=tcp,port=$((tpm_port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear &
for _ in $(seq 200); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $tpm_port))" 2>/dev/null && break
  sleep 0.1
done
export KEYCHAIN_BRIDGE_TCTI="swtpm:host=127.0.0.1,port=$tpm_port"
start_agent() {
  KEYCHAIN_BRIDGE_PASSPHRASE="the keychain passphrase" KEYCHAIN_BRIDGE_ASKPASS="$HOME/askpass" \
    keychaind --socket "$socket" --ssh-agent "$XDG_RUNTIME_DIR/ssh/agent.sock" 2>>"$XDG_RUNTIME_DIR/agent.log" &
  agent_pid=$!
  kb_wait_for_agent
  KB_SOCKET="$XDG_RUNTIME_DIR/ssh/agent.sock" kb_wait_for_agent
}
start_agent
export KEYCHAIN_BRIDGE_AGENT="$socket" SSH_AUTH_SOCK="$XDG_RUNTIME_DIR/ssh/agent.sock"
security create-ssh-key -l "software key" > "$HOME/software.pub"
security create-ssh-key -l "rsa key" -t rsa > "$HOME/rsa.pub"
security create-ssh-key -l "tpm key" --secure-enclave > "$HOME/tpm.pub"
grep -q "^ecdsa-sha2-nistp256 AAAA.* tpm key$" "$HOME/tpm.pub"
expect "$(ssh-add -l | wc -l)" 3 "keys made in the keychain, listed"
echo "the message" > "$HOME/message"
for name in software rsa tpm; do
  rm -f "$HOME/message.sig"
  ssh-keygen -Y sign -n file -f "$HOME/$name.pub" "$HOME/message" 2>/dev/null
  echo "me $(cat "$HOME/$name.pub")" > "$HOME/allowed"
  ssh-keygen -Y verify -f "$HOME/allowed" -I me -n file -s "$HOME/message.sig" < "$HOME/message" >/dev/null
done
if [ -n "$KB_SSH_PORT" ]; then
  cat "$HOME/tpm.pub" > "$KB_WORK/sshd/authorized_keys"
  logged=$(ssh -p "$KB_SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o IdentitiesOnly=yes -i "$HOME/tpm.pub" "$USER@127.0.0.1" echo logged in 2>/dev/null)
  expect "$logged" "logged in" "a login by the TPM's key"
fi
# Not removed by ssh-add (a TPM's key exists nowhere else); security delete-ssh-key removes it.
! ssh-add -d "$HOME/tpm.pub" 2>/dev/null
ssh-add -D 2>/dev/null
expect "$(ssh-add -l | wc -l)" 3 "keys made in the keychain, after ssh-add -D"
security delete-ssh-key -l "rsa key"
expect "$(ssh-add -l | wc -l)" 2 "keys after delete-ssh-key"
# Locked: the agent asks to unlock (the askpass answers), then lists and signs.
security lock-keychain
: > "$HOME/asked"
expect "$(ssh-add -l | wc -l)" 2 "keys listed once the keychain was unlocked"
expect "$(asked)" 1 "one unlock prompt"
grep -q "unlock the keychain for its ssh keys" "$HOME/asked"
rm -f "$HOME/message.sig"
ssh-keygen -Y sign -n file -f "$HOME/tpm.pub" "$HOME/message" 2>/dev/null
# A pair whose access control asks for the user: each signature asks once (naming the program and
# the key), the agent's threads free meanwhile, then signs.
security create-ssh-key -l "presence key" --user-presence > "$HOME/presence.pub"
: > "$HOME/asked"
rm -f "$HOME/message.sig"
ssh-keygen -Y sign -n file -f "$HOME/presence.pub" "$HOME/message" 2>/dev/null
echo "me $(cat "$HOME/presence.pub")" > "$HOME/allowed"
ssh-keygen -Y verify -f "$HOME/allowed" -I me -n file -s "$HOME/message.sig" < "$HOME/message" >/dev/null
expect "$(asked)" 1 "one question for a signature by a key that asks for the user"
grep -q "ssh-keygen.*“presence key”" "$HOME/asked"
# A pair in a group of its own, which a rule gives to ssh-keygen alone: ssh-add does not see it.
security create-ssh-key -l "signing key" --group signing > "$HOME/signing.pub"
mkdir -p "$HOME/.config/keychain-bridge"
echo "$(readlink -f /usr/bin/ssh-keygen) = org.openssh.agent.signing" > "$HOME/.config/keychain-bridge/agent-policy"
chmod 600 "$HOME/.config/keychain-bridge/agent-policy"
kill "$agent_pid"
wait "$agent_pid" 2>/dev/null || true
start_agent
! ssh-add -l | grep -q "signing key"
expect "$(ssh-add -l | wc -l)" 3 "the keys no rule names, as ssh-add sees them"
rm -f "$HOME/message.sig"
ssh-keygen -Y sign -n file -f "$HOME/signing.pub" "$HOME/message" 2>/dev/null
echo "me $(cat "$HOME/signing.pub")" > "$HOME/allowed"
ssh-keygen -Y verify -f "$HOME/allowed" -I me -n file -s "$HOME/message.sig" < "$HOME/message" >/dev/null
EOF

if [ -n "$ssh_port" ]; then
  # The logins above went through sshd, by key, for the test user: its log says so.
  if grep -q "Accepted publickey for $user" "$work/sshd/log"; then
    passed=$((passed + 1))
    echo "PASS sshd let $user in by the agent's keys ($(grep -c "Accepted publickey" "$work/sshd/log") logins)"
  else
    failed=$((failed + 1))
    echo "FAIL sshd logged no login by key:"
    sed 's/^/    /' "$work/sshd/log" | tail -10
  fi
fi
echo "check-ordinary-user: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
