#!/usr/bin/env bash
# Starts the ClickHouse server the server-transport tests run against (test/e2e/clickhouse-server.e2e-spec.ts),
# unless one already answers on its port: Debian's clickhouse-server package (18.16), as a daemon with
# a configuration and data directory of its own, on loopback ports of its own (HTTP 18123, native
# TCP 19000), so it never takes a standard ClickHouse port or touches /etc/clickhouse-server and
# /var/lib/clickhouse. Waits until http://127.0.0.1:18123/ping answers "Ok.".
#
#   CLICKHOUSE_CI_DIR        configuration, data and logs (default /var/lib/clickhouse-svc-ci)
#   CLICKHOUSE_CI_HTTP_PORT  HTTP port (default 18123); tests find it through TEST_CLICKHOUSE_URL
#   CLICKHOUSE_CI_TCP_PORT   native port (default 19000), for clickhouse-client --port
set -euo pipefail

dir=${CLICKHOUSE_CI_DIR:-/var/lib/clickhouse-svc-ci}
http_port=${CLICKHOUSE_CI_HTTP_PORT:-18123}
tcp_port=${CLICKHOUSE_CI_TCP_PORT:-19000}
ping_url="http://127.0.0.1:${http_port}/ping"

answers() {
  [ "$(curl -fsS --max-time 2 "$ping_url" 2>/dev/null)" = "Ok." ]
}

if answers; then
  echo "clickhouse-ci: a ClickHouse server already answers on ${ping_url}"
  exit 0
fi

server=$(command -v clickhouse-server || true)
if [ -z "$server" ]; then
  echo "clickhouse-ci: clickhouse-server is not installed (apt-get install clickhouse-server)" >&2
  exit 1
fi

mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"

# The whole configuration is ours (none of /etc/clickhouse-server is read). 18.16's root element is
# <yandex>; newer servers read it too.
cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>${dir}/log/clickhouse-server.log</log>
        <errorlog>${dir}/log/clickhouse-server.err.log</errorlog>
        <size>10M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>${http_port}</http_port>
    <tcp_port>${tcp_port}</tcp_port>
    <max_connections>256</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>64</max_concurrent_queries>
    <!-- A test server on a shared two-core machine: small caches. -->
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>${dir}/data/</path>
    <tmp_path>${dir}/tmp/</tmp_path>
    <user_files_path>${dir}/user_files/</user_files_path>
    <format_schema_path>${dir}/format_schemas/</format_schema_path>
    <users_config>${dir}/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
XML

# default: no password, loopback only (what TEST_CLICKHOUSE_URL's default uses); svc/secret: the
# credentials docker-compose.yml gives its server, for a test of credentials in CLICKHOUSE_URL.
cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>2000000000</max_memory_usage>
        </default>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <svc>
            <password>secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </svc>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
XML

pid_file="$dir/clickhouse-server.pid"
# Is our server's process (the one the pid file names) alive?
running() {
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--config-file=$dir/config.xml"
}

if running; then
  echo "clickhouse-ci: the server of ${dir} runs but does not answer yet; waiting for it"
else
  # A pid file left by a server that died: the daemon would refuse to start over it, silently.
  rm -f "$pid_file"
  echo "clickhouse-ci: starting $server (config ${dir}/config.xml, HTTP ${http_port}, TCP ${tcp_port})"
  "$server" --config-file="$dir/config.xml" --pid-file="$pid_file" --daemon
fi

for i in $(seq 1 120); do
  if answers; then
    echo "clickhouse-ci: ClickHouse answers on ${ping_url}"
    exit 0
  fi
  # The daemon writes its pid file at once; none after 5 s means it exited.
  if [ "$i" -ge 10 ] && ! running; then
    break
  fi
  sleep 0.5
done
echo "clickhouse-ci: ClickHouse did not come up on ${ping_url}; the errors of its log:" >&2
grep -v -E '^[0-9]+\. |^$' "$dir/log/clickhouse-server.err.log" 2>/dev/null | tail -n 10 >&2 || true
exit 1
