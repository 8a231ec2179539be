import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders and lints charts/cardlens with the real Helm library (helm-java), with the default values and with each
 * values file given, then reads every rendered object into the fabric8 Kubernetes model: a wrong type fails to
 * read, and a field the Kubernetes API does not have (a typo, a field at the wrong level) is reported. Writes each
 * rendering to $CHART_RENDER_DIR/rendered-<n>.yaml (.ci/helm/target) for the chart tests. Exit status 1 on any problem.
 *
 * java -cp 'target/lib/*' ChartCheck.java <chart dir> [values files...]
 */
public class ChartCheck {
  private static final String KUBE_VERSION = "v1.31.0";
  private static final java.util.Set<String> CUSTOM_KINDS = java.util.Set.of("monitoring.coreos.com/v1/ServiceMonitor");
  private static final Path OUT = Path.of(System.getenv().getOrDefault("CHART_RENDER_DIR", ".ci/helm/target"));

  public static void main(String[] args) throws Exception {
    Path chart = Path.of(args[0]);
    List<String> problems = new ArrayList<>();

    LintResult lint = new Helm(chart).lint().strict().call();
    lint.getMessages().forEach(m -> System.out.println("lint: " + m));
    if (lint.isFailed()) problems.add("helm lint --strict failed");

    // helm-java's template leaves hooks out (the migration Job, the `helm test` Pod): render a copy of the chart
    // in which they are ordinary objects, so that they are checked like the rest.
    Path withHooks = hooksAsObjects(chart);

    List<Path> valueSets = new ArrayList<>();
    valueSets.add(null);
    for (int i = 1; i < args.length; i++) valueSets.add(Path.of(args[i]));
    int n = 0;
    for (Path values : valueSets) {
      String label = values == null ? "default values" : values.toString();
      // The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) would be 1.24; render for a current one.
      var template = new Helm(withHooks).template().withName("cardlens").withNamespace("cardlens").withKubeVersion(KUBE_VERSION);
      if (values != null) template = template.withValuesFile(values);
      String rendered;
      try {
        rendered = template.call();
      } catch (RuntimeException e) {
        problems.add(label + ": helm template failed: " + e.getMessage());
        continue;
      }
      java.nio.file.Files.writeString(OUT.resolve("rendered-" + (n++) + ".yaml"), rendered);
      int objects = 0;
      List<HasMetadata> all = new ArrayList<>();
      for (String doc : rendered.split("(?m)^---\\s*$")) {
        if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) continue;
        objects++;
        String where = label + ": " + firstSource(doc);
        Object parsed;
        try {
          parsed = Serialization.unmarshal(doc);
        } catch (RuntimeException e) {
          problems.add(where + ": not a valid Kubernetes object: " + rootMessage(e));
          continue;
        }
        if (!(parsed instanceof HasMetadata resource)) {
          problems.add(where + ": not a known Kubernetes kind");
          continue;
        }
        all.add(resource);
        if (resource instanceof io.fabric8.kubernetes.api.model.GenericKubernetesResource) {
          // Custom resources (the Prometheus Operator's ServiceMonitor) have no model here: only known kinds pass.
          if (!CUSTOM_KINDS.contains(resource.getApiVersion() + "/" + resource.getKind())) problems.add(where + ": unknown kind " + resource.getApiVersion() + "/" + resource.getKind());
          continue;
        }
        List<String> unknown = new ArrayList<>();
        unknownFields(resource, resource.getKind(), unknown, new IdentityHashMap<>());
        for (String u : unknown) problems.add(where + " (" + resource.getKind() + " " + resource.getMetadata().getName() + "): unknown field " + u);
      }
      System.out.println(label + ": " + objects + " objects rendered and read");
      invariants(all, label, problems);
    }
    dashboardMetrics(chart, problems);
    if (!problems.isEmpty()) {
      problems.forEach(p -> System.out.println("PROBLEM " + p));
      System.exit(1);
    }
    System.out.println("chart OK");
  }

  /**
   * The Grafana dashboard is valid JSON and every cardlens_* metric it queries is declared somewhere in the
   * sources (histogram(), counter(), gauge(), scrapedGauge() or prom-client's process metrics), so a renamed
   * metric cannot leave an empty panel behind.
   */
  private static void dashboardMetrics(Path chart, List<String> problems) throws Exception {
    Path dashboard = chart.resolve("dashboards/cardlens.json");
    String json = java.nio.file.Files.readString(dashboard);
    try {
      new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (Exception e) {
      problems.add(dashboard + ": not valid JSON: " + e.getMessage());
      return;
    }
    var declared = new java.util.HashSet<String>();
    var declaration = java.util.regex.Pattern.compile("(?:histogram|counter|gauge|scrapedGauge)\\(\\s*'(cardlens_[a-z0-9_]+)'");
    for (String root : List.of("packages", "services")) {
      try (var files = java.nio.file.Files.walk(Path.of(root))) {
        for (Path file : (Iterable<Path>) files::iterator) {
          String name = file.toString();
          if (!name.endsWith(".ts") || name.contains("node_modules") || name.contains("/generated/") || name.contains("/test/")) continue;
          var m = declaration.matcher(java.nio.file.Files.readString(file));
          while (m.find()) declared.add(m.group(1));
        }
      }
    }
    var used = java.util.regex.Pattern.compile("cardlens_[a-z0-9_]+").matcher(json);
    var missing = new java.util.TreeSet<String>();
    while (used.find()) {
      String metric = used.group().replaceAll("_(bucket|count|sum)$", "");
      boolean processMetric = metric.startsWith("cardlens_process_") || metric.startsWith("cardlens_nodejs_");
      if (!processMetric && !declared.contains(metric)) missing.add(metric);
    }
    for (String m : missing) problems.add(dashboard + ": queries " + m + ", which no source declares");
    System.out.println("dashboard: " + declared.size() + " metrics declared in the sources, none missing from the dashboard's queries".replace(", none missing from the dashboard's queries", missing.isEmpty() ? ", every one the dashboard queries is declared" : ""));
  }

  /** What the chart promises beyond valid objects. */
  private static void invariants(List<HasMetadata> all, String label, List<String> problems) {
    var deployments = new java.util.HashMap<String, io.fabric8.kubernetes.api.model.apps.Deployment>();
    for (HasMetadata r : all) {
      if (r instanceof io.fabric8.kubernetes.api.model.apps.Deployment d) {
        deployments.put(d.getSpec().getSelector().getMatchLabels().get("app.kubernetes.io/component"), d);
        for (var c : d.getSpec().getTemplate().getSpec().getContainers()) {
          boolean serves = c.getPorts() != null && c.getPorts().stream().anyMatch(p -> !"metrics".equals(p.getName()));
          if (serves && (c.getLifecycle() == null || c.getLifecycle().getPreStop() == null)) problems.add(label + ": Deployment " + d.getMetadata().getName() + " serves a port without a preStop drain");
        }
      }
    }
    for (HasMetadata r : all) {
      if (r instanceof io.fabric8.kubernetes.api.model.Service s) {
        boolean grpc = s.getSpec().getPorts().stream().anyMatch(p -> "grpc".equals(p.getName()));
        if (grpc && !"None".equals(s.getSpec().getClusterIP())) problems.add(label + ": gRPC Service " + s.getMetadata().getName() + " is not headless (clients would pin one pod)");
      }
      if (r instanceof io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget pdb) {
        var d = deployments.get(pdb.getSpec().getSelector().getMatchLabels().get("app.kubernetes.io/component"));
        var max = pdb.getSpec().getMaxUnavailable();
        if (d == null) problems.add(label + ": PDB " + pdb.getMetadata().getName() + " selects no Deployment");
        else if (max != null && max.getIntVal() != null && d.getSpec().getReplicas() != null && d.getSpec().getReplicas() <= max.getIntVal())
          problems.add(label + ": PDB " + pdb.getMetadata().getName() + " protects nothing (" + d.getSpec().getReplicas() + " replicas, maxUnavailable " + max.getIntVal() + ")");
      }
    }
  }

  private static Path hooksAsObjects(Path chart) throws java.io.IOException {
    Path copy = java.nio.file.Files.createTempDirectory("chart-check-").resolve(chart.getFileName());
    try (var files = java.nio.file.Files.walk(chart)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(chart.relativize(source).toString());
        if (java.nio.file.Files.isDirectory(source)) {
          java.nio.file.Files.createDirectories(target);
        } else {
          String text = java.nio.file.Files.readString(source);
          if (source.toString().contains("/templates/")) text = text.replace("helm.sh/hook", "cardlens.io/checked-hook");
          java.nio.file.Files.writeString(target, text);
        }
      }
    }
    return copy;
  }

  private static String firstSource(String doc) {
    return doc.lines().filter(l -> l.startsWith("# Source:")).findFirst().map(l -> l.substring(10)).orElse("?");
  }

  private static String rootMessage(Throwable e) {
    while (e.getCause() != null) e = e.getCause();
    return e.getMessage();
  }

  /** Walks the typed model: any value kept in an additionalProperties map is a field the API does not define. */
  private static void unknownFields(Object value, String path, List<String> out, IdentityHashMap<Object, Boolean> seen) throws Exception {
    if (value == null || seen.containsKey(value)) return;
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) unknownFields(item, path + "[" + (i++) + "]", out, seen);
      return;
    }
    if (value instanceof Map<?, ?> map) {
      for (var e : map.entrySet()) unknownFields(e.getValue(), path + "." + e.getKey(), out, seen);
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) return;
    seen.put(value, true);
    for (Method m : value.getClass().getMethods()) {
      if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || !m.getName().startsWith("get") || m.getDeclaringClass() == Object.class) continue;
      Object child = m.invoke(value);
      if (m.getName().equals("getAdditionalProperties")) {
        if (child instanceof Map<?, ?> extra) for (Object k : extra.keySet()) out.add(path + "." + k);
        continue;
      }
      unknownFields(child, path + "." + decapitalize(m.getName().substring(3)), out, seen);
    }
  }

  private static String decapitalize(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }
}
