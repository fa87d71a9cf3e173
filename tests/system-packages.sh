#!/usr/bin/env bash
# The system packages the test suite needs beside Python: a real redis-server and PostgreSQL for
# the cluster tests (tests/cluster/postgres.py runs Debian's, from /usr/lib/postgresql/VERSION/bin)
# Debian's chromium-headless-shell (Chromium without its desktop window) for the web page tests, and
# HAProxy, which runs deploy/haproxy.cfg's rules in front of a server (tests/server/test_proxies.py).
# Installs them when missing (as root, with apt-get); otherwise says what to install.
set -euo pipefail
need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v chromium-headless-shell >/dev/null || need+=(chromium-headless-shell)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
else
    echo "The tests need: ${need[*]} (on Debian/Ubuntu: sudo apt-get install -y ${need[*]})" >&2
    exit 1
fi
