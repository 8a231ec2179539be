{{/*
Shared helpers. Most take a context dict:
  root: the chart's root context ($)
  name: the component's key under .Values.services (e.g. "gateway", "scan-worker")
  c:    the component's values
*/}}

{{- define "cardlens.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified base name: "<release>-cardlens", or just "<release>" when it already contains the chart name. */}}
{{- define "cardlens.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "cardlens.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of a component's objects (Deployment, Service, ConfigMap, ServiceAccount, ...). Context: dict root, name. */}}
{{- define "cardlens.componentName" -}}
{{- printf "%s-%s" (include "cardlens.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object of the chart. Context: root. */}}
{{- define "cardlens.commonLabels" -}}
helm.sh/chart: {{ include "cardlens.chart" . }}
app.kubernetes.io/part-of: cardlens
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{/* Selector labels of a component (stable: never change them on upgrade). Context: dict root, name. */}}
{{- define "cardlens.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cardlens.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* All labels of a component's objects. Context: dict root, name, c. */}}
{{- define "cardlens.labels" -}}
{{ include "cardlens.commonLabels" .root }}
{{ include "cardlens.selectorLabels" . }}
{{- with .c }}
cardlens.io/protocol: {{ .protocol | default "none" }}
{{- end }}
{{- end }}

{{/* Whether a component runs on GPU nodes ("true" or ""). Context: c. */}}
{{- define "cardlens.gpuEnabled" -}}
{{- if dig "gpu" "enabled" false . }}true{{ end }}
{{- end }}

{{/*
Image reference of a component: <registry>/<repository>:<tag>; the GPU variant when gpu.enabled.
A repository that already contains a registry host (a "." or ":" before the first "/") is used as is.
Context: dict root, c.
*/}}
{{- define "cardlens.image" -}}
{{- $img := .c.image | default dict }}
{{- if include "cardlens.gpuEnabled" .c }}
{{- $img = merge (deepCopy (dig "gpu" "image" dict .c)) $img }}
{{- end }}
{{- include "cardlens.imageRef" (dict "root" .root "image" $img) }}
{{- end }}

{{/* Context: dict root, image ({repository, tag}). */}}
{{- define "cardlens.imageRef" -}}
{{- $repo := required "every component needs image.repository" .image.repository }}
{{- $first := first (splitList "/" $repo) }}
{{- if and (not (contains "." $first)) (not (contains ":" $first)) .root.Values.image.registry }}
{{- $repo = printf "%s/%s" (trimSuffix "/" .root.Values.image.registry) $repo }}
{{- end }}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- printf "%s:%s" $repo (toString $tag) }}
{{- end }}

{{/*
dns:///host:port of a component's headless gRPC Service, for the clients that call it: the dns resolver returns
every ready pod and the clients round-robin over them. Context: dict root, name (the target).
*/}}
{{- define "cardlens.grpcAddress" -}}
{{- $target := index .root.Values.services .name | default dict }}
{{- if not $target.port }}
{{- fail (printf "grpcClients refers to %q, which is not a component with a port under services:" .name) }}
{{- end }}
{{- printf "dns:///%s:%v" (include "cardlens.componentName" .) $target.port }}
{{- end }}

{{/*
Non-secret environment of a component, as a map (rendered into its ConfigMap). Precedence, highest first:
the component's env, the GPU env (when gpu.enabled), the blob-store env (blobStore.env, when the component
has blobStore: true), the generated entries (host/port, gRPC addresses of the components it calls,
MIGRATE_ON_START), then the chart-wide env. Empty values are left out (= unset), so `KEY: ""` in an override
file removes a default.
Context: dict root, name, c.
*/}}
{{- define "cardlens.envMap" -}}
{{- $root := .root }}
{{- $c := .c }}
{{- $generated := dict }}
{{- if $c.portEnv }}{{ $_ := set $generated $c.portEnv (toString $c.port) }}{{ end }}
{{- if $root.Values.metrics.enabled }}{{ $_ := set $generated "METRICS_PORT" (toString $root.Values.metrics.port) }}{{ end }}
{{- if $c.hostEnv }}{{ $_ := set $generated $c.hostEnv "0.0.0.0" }}{{ end }}
{{- range $envName, $target := $c.grpcClients | default dict }}
{{- $_ := set $generated $envName (include "cardlens.grpcAddress" (dict "root" $root "name" $target)) }}
{{- end }}
{{- if $c.database }}
{{- $_ := set $generated "MIGRATE_ON_START" (ternary "false" "true" (eq (toString $root.Values.migrations.enabled) "true")) }}
{{- end }}
{{- $gpuEnv := dict }}
{{- if include "cardlens.gpuEnabled" $c }}{{ $gpuEnv = dig "gpu" "env" dict $c }}{{ end }}
{{- $blobEnv := dict }}
{{- if $c.blobStore }}{{ $blobEnv = dig "env" dict ($root.Values.blobStore | default dict) }}{{ end }}
{{- $merged := merge (deepCopy ($c.env | default dict)) (deepCopy $gpuEnv) (deepCopy $blobEnv) $generated (deepCopy ($root.Values.env | default dict)) }}
{{- $out := dict }}
{{- range $k, $v := $merged }}
{{- if and (not (kindIs "invalid" $v)) (ne (toString $v) "") }}{{ $_ := set $out $k (toString $v) }}{{ end }}
{{- end }}
{{- if and $c.blobStore (eq (get $out "BLOB_STORE") "s3") (not (get $out "S3_BUCKET")) }}
{{- fail (printf "services.%s uses the blob store with BLOB_STORE=s3 but no S3_BUCKET: set blobStore.env.S3_BUCKET" .name) }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/*
secretEnv list of a component: its own secretEnv plus, with blobStore: true, blobStore.secretEnv, plus, for
the components that read KAFKA_BROKERS, kafka.secretEnv (SASL credentials).
Returned as YAML (a list under the key "list"), for fromYaml. Context: dict root, c.
*/}}
{{- define "cardlens.secretEnvList" -}}
{{- $list := .c.secretEnv | default list }}
{{- if .c.blobStore }}
{{- $list = concat $list (dig "secretEnv" list (.root.Values.blobStore | default dict)) }}
{{- end }}
{{- if has "KAFKA_BROKERS" $list }}
{{- $list = concat $list (dig "secretEnv" list (.root.Values.kafka | default dict)) }}
{{- end }}
{{- toYaml (dict "list" $list) }}
{{- end }}

{{/*
`env:` entries read from the existing Secret. Each item is either a key name ("DATABASE_URL": env var and
Secret key alike) or {name, key (default: name), secretName (default: secrets.existingSecret), optional}.
Context: dict root, list.
*/}}
{{- define "cardlens.secretEnv" -}}
{{- range .list }}
{{- $item := kindIs "string" . | ternary (dict "name" .) . }}
- name: {{ $item.name }}
  valueFrom:
    secretKeyRef:
      name: {{ $item.secretName | default $.root.Values.secrets.existingSecret | required "secrets.existingSecret is required" }}
      key: {{ $item.key | default $item.name }}
      {{- if $item.optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}

{{/* Container ports of a component. Context: c. */}}
{{- define "cardlens.containerPorts" -}}
{{- if or .c.port .root.Values.metrics.enabled }}
ports:
{{- if .c.port }}
  - name: {{ eq .c.protocol "http" | ternary "http" "grpc" }}
    containerPort: {{ .c.port }}
    protocol: TCP
{{- end }}
{{- if .root.Values.metrics.enabled }}
  - name: metrics
    containerPort: {{ .root.Values.metrics.port }}
    protocol: TCP
{{- end }}
{{- end }}
{{- end }}

{{/*
Probes of a component: the component's own `probes` map (startupProbe/readinessProbe/livenessProbe) when
given, else generated from its protocol: http -> GET /readyz (readiness) and /healthz (liveness, startup);
grpc -> native gRPC health checks (grpc.health.v1, service ""). Context: dict root, c.
*/}}
{{- define "cardlens.probes" -}}
{{- $c := .c }}
{{- $d := .root.Values.probeDefaults }}
{{- if $c.probes }}
{{- toYaml $c.probes }}
{{- else if and $c.port (eq $c.protocol "http") }}
startupProbe:
  httpGet: { path: /healthz, port: http }
  {{- toYaml $d.startup | nindent 2 }}
readinessProbe:
  httpGet: { path: /readyz, port: http }
  {{- toYaml $d.readiness | nindent 2 }}
livenessProbe:
  httpGet: { path: /healthz, port: http }
  {{- toYaml $d.liveness | nindent 2 }}
{{- else if and $c.port (eq $c.protocol "grpc") }}
startupProbe:
  grpc: { port: {{ $c.port }} }
  {{- toYaml $d.startup | nindent 2 }}
readinessProbe:
  grpc: { port: {{ $c.port }} }
  {{- toYaml $d.readiness | nindent 2 }}
livenessProbe:
  grpc: { port: {{ $c.port }} }
  {{- toYaml $d.liveness | nindent 2 }}
{{- end }}
{{- end }}

{{/* Resources of a component, plus nvidia.com/gpu when gpu.enabled. Context: c. */}}
{{- define "cardlens.resources" -}}
{{- $res := deepCopy (.resources | default dict) }}
{{- if include "cardlens.gpuEnabled" . }}
{{- $limits := $res.limits | default dict }}
{{- $_ := set $limits "nvidia.com/gpu" (dig "gpu" "count" 1 .) }}
{{- $_ := set $res "limits" $limits }}
{{- end }}
{{- toYaml $res }}
{{- end }}

{{/* The tmp volume and its mount (read-only root filesystem). */}}
{{- /* The writable /tmp of a pod: the chart-wide tmpVolume, overridden per component (e.g. medium: Memory). */}}
{{- define "cardlens.tmpVolume" -}}
{{- $v := merge (deepCopy (.c.tmpVolume | default dict)) (deepCopy (.root.Values.tmpVolume | default dict)) }}
- name: tmp
  emptyDir:
    {{- with $v.medium }}
    medium: {{ . }}
    {{- end }}
    {{- with $v.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- end }}
