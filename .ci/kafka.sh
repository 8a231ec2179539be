#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, combined broker + controller) for tests, without Docker or a Kafka package.
#
#   bash .ci/kafka.sh start    resolve the broker jars (Maven, cached in ~/.m2), format fresh storage under
#                              .ci/.work/kafka with a random cluster id, start the broker in the background
#                              and wait until it answers metadata requests on 127.0.0.1:9092. No-op when it
#                              already runs.
#   bash .ci/kafka.sh stop     stop the broker this checkout started (SIGTERM, then SIGKILL after 30 s).
#   bash .ci/kafka.sh status   exit 0 when a broker answers on 127.0.0.1:9092, 3 when none does.
#
# Listeners: PLAINTEXT://127.0.0.1:9092 (clients), CONTROLLER://127.0.0.1:9093 (KRaft quorum).
# Files: .ci/kafka/target/lib (jars), .ci/.work/kafka/{server.properties,data,logs/server.log,kafka.pid}.
# A broker already listening on 9092 that this checkout did not start (another clone's) is reused, never
# stopped. Environment: KAFKA_HEAP_OPTS (default -Xms256m -Xmx512m), KAFKA_START_TIMEOUT (seconds, default
# 90), JAVA_HOME (Java 17+), KAFKA_PORT / KAFKA_CONTROLLER_PORT (default 9092 / 9093; the defaults are what
# tests expect unless KAFKA_BROKERS says otherwise), KAFKA_WORK_DIR (default .ci/.work/kafka: a second broker
# on other ports needs its own, as the Kafka-outage e2e test's private broker has).
# KAFKA_SASL_SSL_PORT (unset by default): also listen with SASL over TLS on that port (SCRAM-SHA-256/512 and
# PLAIN for user KAFKA_SASL_USER / KAFKA_SASL_PASSWORD, default cardlens / cardlens-secret) with a self-signed
# certificate for 127.0.0.1 made by keytool; its PEM is written to $KAFKA_WORK_DIR/tls/ca.pem for clients.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POM="$ROOT/.ci/kafka/pom.xml"
LIB="$ROOT/.ci/kafka/target/lib"
LOG4J_CONF="$ROOT/.ci/kafka/log4j2.properties"
WORK="${KAFKA_WORK_DIR:-$ROOT/.ci/.work/kafka}"
DATA="$WORK/data"
LOGS="$WORK/logs"
CONF="$WORK/server.properties"
PIDFILE="$WORK/kafka.pid"
LOGFILE="$LOGS/server.log"
HOST=127.0.0.1
PORT="${KAFKA_PORT:-9092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
BROKERS="$HOST:$PORT"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
SASL_SSL_PORT="${KAFKA_SASL_SSL_PORT:-}"
SASL_USER="${KAFKA_SASL_USER:-cardlens}"
SASL_PASSWORD="${KAFKA_SASL_PASSWORD:-cardlens-secret}"
TLS="$WORK/tls"
STOREPASS=cardlens-test-store

log() { printf '[kafka.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# pid of the broker this checkout started, when it is still alive.
our_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  printf '%s\n' "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# 0: broker answers metadata; 1: it does not; 2: cannot tell (kafkajs not installed yet).
metadata_ok() { node "$ROOT/.ci/kafka-ready.mjs" "$BROKERS" "${1:-5000}" >/dev/null 2>&1; }

resolve_jars() {
  local stamp want
  stamp="$LIB/.resolved"
  want="$(sha256sum "$POM" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && compgen -G "$LIB/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch Kafka's jars into ~/.m2)"
  log "resolving Kafka jars with Maven into ${LIB#"$ROOT"/}"
  rm -rf "$LIB"
  mkdir -p "$LOGS"
  if ! mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies -DoutputDirectory="$LIB" \
    >"$LOGS/maven.log" 2>&1; then
    cat "$LOGS/maven.log" >&2
    die "could not resolve Kafka's jars (Maven Central or ~/.m2 needed once)"
  fi
  printf '%s\n' "$want" >"$stamp"
}

# A self-signed certificate for 127.0.0.1 (PKCS12 keystore for the broker, PEM for the clients' CA list).
make_tls() {
  rm -rf "$TLS"
  mkdir -p "$TLS"
  local keytool="${JAVA_HOME:+$JAVA_HOME/bin/}keytool"
  "$keytool" -genkeypair -alias broker -keyalg RSA -keysize 2048 -validity 30 -dname "CN=127.0.0.1" \
    -ext "SAN=IP:127.0.0.1,DNS:localhost" -keystore "$TLS/broker.p12" -storetype PKCS12 \
    -storepass "$STOREPASS" -keypass "$STOREPASS" >/dev/null 2>&1 || die "keytool could not make the broker's certificate"
  "$keytool" -exportcert -rfc -alias broker -keystore "$TLS/broker.p12" -storepass "$STOREPASS" -file "$TLS/ca.pem" >/dev/null 2>&1 \
    || die "keytool could not export the certificate"
}

write_config() {
  local listeners="PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT"
  local advertised="PLAINTEXT://$HOST:$PORT"
  local protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [[ -n "$SASL_SSL_PORT" ]]; then
    listeners+=",SASL_SSL://$HOST:$SASL_SSL_PORT"
    advertised+=",SASL_SSL://$HOST:$SASL_SSL_PORT"
    protocols+=",SASL_SSL:SASL_SSL"
  fi
  cat >"$CONF" <<EOF
# Written by .ci/kafka.sh on every start; edit the script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
listeners=$listeners
advertised.listeners=$advertised
listener.security.protocol.map=$protocols
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA

# Topics are created by @cardlens/bus (and by tests), never implicitly.
auto.create.topics.enable=false
delete.topic.enable=true
num.partitions=1
default.replication.factor=1
min.insync.replicas=1

# Single node: internal topics with one replica, few partitions (first consumer group / transaction starts fast).
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0

# Small, short-lived logs: this broker only ever holds test data.
log.segment.bytes=1048576
log.retention.ms=3600000
log.retention.bytes=67108864
log.retention.check.interval.ms=60000
num.network.threads=2
num.io.threads=4
EOF
  if [[ -n "$SASL_SSL_PORT" ]]; then
    cat >>"$CONF" <<EOF

# SASL over TLS (KAFKA_SASL_SSL_PORT): SCRAM users are stored in the cluster metadata at format time.
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN
ssl.keystore.location=$TLS/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STOREPASS
ssl.key.password=$STOREPASS
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$SASL_PASSWORD";
EOF
  fi
}

wait_ready() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT)) rc
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker process $pid exited during startup; last log lines:"
      tail -n 40 "$LOGFILE" >&2 || true
      rm -f "$PIDFILE"
      return 1
    fi
    if port_open "$PORT"; then
      rc=0
      metadata_ok 3000 || rc=$?
      if ((rc == 0)); then return 0; fi
      if ((rc == 2)) && grep -q 'Kafka Server started' "$LOGFILE" 2>/dev/null; then
        log "kafkajs not installed yet: readiness judged from the broker log only"
        return 0
      fi
    fi
    sleep 0.5
  done
  log "broker did not become ready within ${START_TIMEOUT}s; last log lines:"
  tail -n 40 "$LOGFILE" >&2 || true
  return 1
}

cmd_start() {
  local pid t0=$SECONDS
  if pid="$(our_pid)"; then
    wait_ready "$pid" || die "broker (pid $pid) is running but not answering; try: bash .ci/kafka.sh stop"
    log "already running (pid $pid) on $BROKERS"
    return 0
  fi
  if port_open "$PORT" || port_open "$CONTROLLER_PORT"; then
    if metadata_ok 5000; then
      log "a Kafka broker not started by this checkout already answers on $BROKERS; reusing it"
      return 0
    fi
    die "port $PORT or $CONTROLLER_PORT is in use by something that is not a working Kafka broker"
  fi

  "$JAVA" -version >/dev/null 2>&1 || die "java not found (Kafka 4 needs Java 17+)"
  resolve_jars
  local t_jars=$SECONDS

  rm -rf "$DATA"
  mkdir -p "$DATA" "$LOGS"
  write_config
  local cluster_id
  # Kafka's Uuid text form: 16 random bytes, URL-safe base64 without padding (22 characters). One that
  # starts with '-' would read as an option, so draw again.
  cluster_id=-
  while [[ "$cluster_id" == -* ]]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
  done
  local scram=()
  if [[ -n "$SASL_SSL_PORT" ]]; then
    make_tls
    scram=(--add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]" --add-scram "SCRAM-SHA-256=[name=$SASL_USER,password=$SASL_PASSWORD]")
  fi
  "$JAVA" -Xmx256m -cp "$LIB/*" -Dlog4j2.configurationFile="file:$LOG4J_CONF" \
    kafka.tools.StorageTool format --cluster-id "$cluster_id" --config "$CONF" "${scram[@]}" >"$LOGS/format.log" 2>&1 \
    || { cat "$LOGS/format.log" >&2; die "storage format failed"; }
  local t_format=$SECONDS

  rm -f "$PIDFILE"
  # setsid: the broker outlives the shell (and its Ctrl-C) that started it. The inner bash records its own
  # pid and then execs java, so the pid file names the JVM itself. 9>&-: the broker must not hold the lock.
  # shellcheck disable=SC2086,SC2016
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" \
    "$JAVA" $HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="file:$LOG4J_CONF" -Dkafka.logs.dir="$LOGS" \
    -cp "$LIB/*" kafka.Kafka "$CONF" </dev/null >"$LOGFILE" 2>&1 9>&- &
  for _ in $(seq 1 50); do
    [[ -s "$PIDFILE" ]] && break
    sleep 0.1
  done
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || die "could not launch the broker (no pid file); see ${LOGFILE#"$ROOT"/}"

  wait_ready "$pid" || { cmd_stop >/dev/null 2>&1 || true; die "Kafka failed to start; full log: ${LOGFILE#"$ROOT"/}"; }
  local t_ready=$SECONDS
  # Have the fresh broker create and load __consumer_offsets now, so the first consumer group of a test
  # does not wait on (and log) "The coordinator is loading".
  node "$ROOT/.ci/kafka-ready.mjs" "$BROKERS" 5000 warm >/dev/null 2>&1 || log "note: group coordinator warm-up did not finish"
  log "started (pid $pid, cluster $cluster_id) on $BROKERS in $((SECONDS - t0))s" \
    "(jars $((t_jars - t0))s, format $((t_format - t_jars))s, broker $((t_ready - t_format))s, warm-up $((SECONDS - t_ready))s);" \
    "log: ${LOGFILE#"$ROOT"/}"
}

cmd_stop() {
  local pid
  if ! pid="$(our_pid)"; then
    rm -f "$PIDFILE"
    if port_open "$PORT"; then
      log "not started by this checkout; leaving the broker on $BROKERS alone"
    else
      log "not running"
    fi
    return 0
  fi
  log "stopping broker (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "still alive after 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$PIDFILE"
  log "stopped"
}

cmd_status() {
  local pid
  if pid="$(our_pid)"; then
    if metadata_ok 5000; then
      echo "running (pid $pid) on $BROKERS"
    else
      echo "process $pid is up but $BROKERS does not answer metadata requests yet"
    fi
    return 0
  fi
  if port_open "$PORT"; then
    echo "a broker not started by this checkout listens on $BROKERS"
    return 0
  fi
  echo "stopped"
  return 3
}

# start and stop of one checkout never overlap (two shells starting at once would format the same data).
lock() {
  mkdir -p "$WORK"
  exec 9>"$WORK/.lock"
  flock -w 120 9 || die "another kafka.sh start/stop of this checkout is still running"
}

case "${1:-}" in
  start) lock && cmd_start ;;
  stop) lock && cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 64 ;;
esac
