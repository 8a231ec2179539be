#!/usr/bin/env bash
# The Helm chart, checked with the real Helm library (helm-java, from Maven Central): `helm lint --strict`,
# `helm template` with the default values and with k8s/values-production.yaml (values are validated against
# charts/cardlens/values.schema.json by Helm itself), and every rendered object read into the fabric8
# Kubernetes model (wrong types and fields the Kubernetes API does not have fail). See .ci/helm/ChartCheck.java.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
POM=.ci/helm/pom.xml
LIB=.ci/helm/target/lib
want="$(sha256sum "$POM" | cut -d' ' -f1)"
if [[ ! -f "$LIB/.resolved" || "$(cat "$LIB/.resolved")" != "$want" ]]; then
  echo "[chart-check] resolving helm-java and the fabric8 Kubernetes model with Maven"
  rm -rf "$LIB"
  mkdir -p "$LIB"
  mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies -DoutputDirectory="$ROOT/$LIB"
  printf '%s\n' "$want" >"$LIB/.resolved"
fi
java -cp "$LIB/*" .ci/helm/ChartCheck.java charts/cardlens k8s/values-production.yaml 2>&1 | grep -v '^Note: '
