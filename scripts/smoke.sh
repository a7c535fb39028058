#!/usr/bin/env bash
# The README's start command on a fresh DATA_DIR: migrations applied, owner bootstrapped, login,
# an API key, a call with it, Swagger and the dashboard up, the start line for a person, then SIGTERM and a clean exit.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${SMOKE_PORT:-3917}
data=$(mktemp -d)
log="$data/server.log"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
npm run build >/dev/null
# start:prod's node flags (V8's, which a newer Node may refuse), without npm between us and the pid.
read -ra flags <<<"$(node -p "require('./package.json').scripts['start:prod'].split(/\\s+/).filter((a) => a.startsWith('--')).join(' ')")"
DATA_DIR="$data" PORT=$port BOOTSTRAP_OWNER_EMAIL=owner@example.com BOOTSTRAP_OWNER_PASSWORD='smoke test password' \
  node "${flags[@]}" dist/main.js >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 60); do curl -fs "localhost:$port/health" >/dev/null && break; sleep 0.5; done
fail() { echo "smoke: $*"; cat "$log"; exit 1; }
base="http://localhost:$port/api/v1"
token=$(curl -fs "$base/auth/login" -H 'content-type: application/json' \
  -d '{"email":"OWNER@example.com","password":"smoke test password"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).token') || fail "login"
key=$(curl -fs "$base/api-keys" -H "authorization: Bearer $token" -H 'content-type: application/json' -d '{"name":"smoke"}' \
  | node -pe 'JSON.parse(require("fs").readFileSync(0)).key') || fail "create key"
curl -fs -D "$data/h" "$base/public/ping" -H "x-api-key: $key" | grep -q '"ok":true' || fail "ping"
grep -qi '^x-ratelimit-remaining: 59' "$data/h" || fail "rate-limit headers"
curl -fs "localhost:$port/docs" | grep -qi swagger || fail "swagger ui"
curl -fs -D "$data/d" "localhost:$port/" | grep -q '<div id="root">' || fail "dashboard at /"
grep -qi "^content-security-policy: default-src 'none'" "$data/d" || fail "dashboard CSP"
asset=$(curl -fs "localhost:$port/" | grep -o '/assets/[^"]*\.js' | head -1)
curl -fs -o /dev/null "localhost:$port$asset" || fail "dashboard script $asset"
grep -qF "Gatehouse is listening on http://localhost:$port · Dashboard: http://localhost:$port/ · Swagger UI: http://localhost:$port/docs · sign in as owner@example.com" "$log" \
  || fail "the start line for a person (where it listens, the dashboard, Swagger UI, how to sign in)"
if grep -q 'Mapped {' "$log"; then fail "route mapping lines at the default log level"; fi
if grep -q "$key\|$token\|smoke test password" "$log"; then fail "a secret reached the log"; fi
kill -TERM "$pid"
for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
if kill -0 "$pid" 2>/dev/null; then fail "still running 10 s after SIGTERM"; fi
echo "smoke: 1 passed, 0 failed"
