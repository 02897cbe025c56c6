# Sourced by the benchmark scripts: starts the release `cardsync serve` ("$bin") on a free
# loopback port over ./data, with the admin's password from CARDSYNC_ADMIN_PASSWORD, logging one
# line per request to ./serve.log, and stops it when the script exits.
# Sets: server (its pid), port, remote (the contacts database's URL, with the admin's name).
"$bin" serve --data data --port 0 --admin admin > serve.out 2> serve.log &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening serve.out 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' serve.out | head -1)
[ -n "$port" ] || { echo "cardsync serve did not start:" >&2; cat serve.log >&2; exit 1; }
remote="http://admin@127.0.0.1:$port/contacts"
