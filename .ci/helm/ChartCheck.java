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
  private static final Path OUT = Path.of(System.getenv().getOrDefault("CHART_RENDER_DIR", ".ci/helm/target"));

  public static void main(String[] args) throws Exception {
    Path chart = Path.of(args[0]);
    List<String> problems = new ArrayList<>();

    LintResult lint = new Helm(chart).lint().strict().call();
    lint.getMessages().forEach(m -> System.out.println("lint: " + m));
    if (lint.isFailed()) problems.add("helm lint --strict failed");

    List<Path> valueSets = new ArrayList<>();
    valueSets.add(null);
    for (int i = 1; i < args.length; i++) valueSets.add(Path.of(args[i]));
    int n = 0;
    for (Path values : valueSets) {
      String label = values == null ? "default values" : values.toString();
      // The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) would be 1.24; render for a current one.
      var template = new Helm(chart).template().withName("cardlens").withNamespace("cardlens").withKubeVersion(KUBE_VERSION);
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
        List<String> unknown = new ArrayList<>();
        unknownFields(resource, resource.getKind(), unknown, new IdentityHashMap<>());
        for (String u : unknown) problems.add(where + " (" + resource.getKind() + " " + resource.getMetadata().getName() + "): unknown field " + u);
      }
      System.out.println(label + ": " + objects + " objects rendered and read");
    }
    if (!problems.isEmpty()) {
      problems.forEach(p -> System.out.println("PROBLEM " + p));
      System.exit(1);
    }
    System.out.println("chart OK");
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
