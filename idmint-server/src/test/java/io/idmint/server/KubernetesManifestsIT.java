package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.config.Config;
import io.idmint.server.harness.ChildProcess;
import io.idmint.server.harness.NodeTools;
import io.idmint.server.json.StrictJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/*.yaml: valid against the Kubernetes API schemas (kubernetes-models from
 * npm, pinned by deploy/kubernetes/validate/package-lock.json, installed here when missing),
 * and saying what idmint needs: probes on its health endpoints, a grace period longer than the
 * drain, a locked-down non-root pod, config the server accepts, and for the StatefulSet the pod
 * ordinal as the preferred worker.
 */
@SuppressWarnings("unchecked") // the JSON the validator prints, read as maps and lists
class KubernetesManifestsIT {

    private static final Path DIR = Path.of("").toAbsolutePath().getParent()
            .resolve("deploy/kubernetes");
    private static final Path VALIDATOR = DIR.resolve("validate");

    @TempDir
    Path tmp;

    @BeforeAll
    static void installValidator() throws Exception {
        NodeTools.installIn(VALIDATOR);
    }

    @Test
    void manifests_validateAgainstTheKubernetesSchemas() throws Exception {
        ChildProcess.Result r = validate(manifests());
        assertThat(r.exitCode()).as(r.output()).isZero();
    }

    @Test
    void validator_rejectsAnObjectTheApiWouldRefuse() throws Exception {
        Path bad = tmp.resolve("bad.yaml");
        Files.writeString(bad, Files.readString(DIR.resolve("deployment.yaml"))
                .replace("containerPort: 8080", "containerPort: http-port"));
        ChildProcess.Result r = validate(List.of(bad));
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output()).contains("apps/v1/Deployment idmint")
                .contains("containerPort must be integer");
    }

    @Test
    void workloads_probeHealth_drainWithinTheGrace_runLockedDown_withConfigTheServerAccepts()
            throws Exception {
        List<Map<String, Object>> objects = objects();
        List<Map<String, Object>> workloads = objects.stream()
                .filter(o -> Set.of("StatefulSet", "Deployment").contains(o.get("kind")))
                .toList();
        assertThat(workloads).extracting(o -> o.get("kind"))
                .containsExactlyInAnyOrder("StatefulSet", "Deployment");
        for (Map<String, Object> w : workloads) {
            String name = w.get("kind") + " " + map(w, "metadata").get("name");
            Map<String, Object> pod = map(map(map(w, "spec"), "template"), "spec");
            Map<String, Object> labels = map(map(map(w, "spec"), "template"), "metadata");
            Map<String, Object> podLabels = map(labels, "labels");
            List<?> containers = (List<?>) pod.get("containers");
            assertThat(containers).as(name).hasSize(1);
            Map<String, Object> c = (Map<String, Object>) containers.get(0);

            assertThat(map(map(c, "readinessProbe"), "httpGet").get("path")).as(name)
                    .isEqualTo("/health/ready");
            assertThat(map(map(c, "livenessProbe"), "httpGet").get("path")).as(name)
                    .isEqualTo("/health/live");

            Map<String, String> env = env(c);
            Config config = Config.load(Map.of(), env, null);
            Duration grace = config.get(Config.SHUTDOWN_GRACE);
            assertThat(((Number) pod.get("terminationGracePeriodSeconds")).longValue())
                    .as(name + ": terminationGracePeriodSeconds > shutdown.grace " + grace)
                    .isGreaterThan(grace.toSeconds());

            Map<String, Object> podSecurity = map(pod, "securityContext");
            assertThat(podSecurity.get("runAsNonRoot")).as(name).isEqualTo(true);
            assertThat(podSecurity.get("runAsUser")).as(name + ": the image's user")
                    .isEqualTo(10001L);
            Map<String, Object> security = map(c, "securityContext");
            assertThat(security.get("readOnlyRootFilesystem")).as(name).isEqualTo(true);
            assertThat(security.get("allowPrivilegeEscalation")).as(name).isEqualTo(false);
            assertThat(map(security, "capabilities").get("drop")).as(name)
                    .isEqualTo(List.of("ALL"));
            assertThat(((List<?>) c.get("volumeMounts")).stream()
                    .map(m -> ((Map<String, Object>) m).get("mountPath")))
                    .as(name + ": the writable paths of a read-only image")
                    .containsExactlyInAnyOrder("/var/lib/idmint", "/tmp");
            assertThat(map(map(c, "resources"), "requests")).as(name)
                    .containsKeys("cpu", "memory");
            assertThat(map(map(c, "resources"), "limits")).as(name).containsKey("memory");

            assertThat(config.get(Config.REGISTRY)).as(name).startsWith("etcd://");
            assertThat(selects(objects, "PodDisruptionBudget", podLabels))
                    .as(name + ": a PodDisruptionBudget selects its pods").hasSize(1);
            assertThat(selects(objects, "Service", podLabels))
                    .as(name + ": a Service selects its pods").isNotEmpty();
            if (w.get("kind").equals("StatefulSet")) {
                assertThat(config.get(Config.WORKER)).as(name + ": pod idmint-2 prefers worker 2")
                        .isEqualTo(2);
                assertThat(env.get("IDMINT_WORKER")).isEqualTo("ordinal");
                Map<String, Object> podName = ((List<?>) c.get("env")).stream()
                        .map(e -> (Map<String, Object>) e)
                        .filter(e -> e.get("name").equals("POD_NAME")).findFirst().orElseThrow();
                assertThat(map(map(podName, "valueFrom"), "fieldRef").get("fieldPath"))
                        .isEqualTo("metadata.name");
                Object serviceName = map(w, "spec").get("serviceName");
                assertThat(objects).as(name + ": its headless service").anyMatch(o ->
                        o.get("kind").equals("Service")
                                && map(o, "metadata").get("name").equals(serviceName)
                                && "None".equals(map(o, "spec").get("clusterIP")));
            } else {
                assertThat(config.get(Config.WORKER)).as(name + ": the registry picks")
                        .isNull();
            }
        }
    }

    /** The container's environment as the pod sees it, with POD_NAME as in pod idmint-2. */
    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new HashMap<>();
        for (Object o : (List<?>) container.get("env")) {
            Map<String, Object> e = (Map<String, Object>) o;
            String name = (String) e.get("name");
            env.put(name, e.containsKey("value") ? (String) e.get("value") : "idmint-2");
        }
        Set<String> known = Config.keys().stream().map(Config.Key::envVar)
                .collect(Collectors.toSet());
        assertThat(env.keySet().stream().filter(n -> n.startsWith("IDMINT_")))
                .as("every IDMINT_ variable names a config key").allMatch(known::contains);
        return env;
    }

    private static List<Map<String, Object>> selects(List<Map<String, Object>> objects, String kind,
            Map<String, Object> podLabels) {
        return objects.stream().filter(o -> o.get("kind").equals(kind)).filter(o -> {
            Map<String, Object> spec = map(o, "spec");
            Map<String, Object> selector = kind.equals("Service") ? map(spec, "selector")
                    : map(map(spec, "selector"), "matchLabels");
            return podLabels.entrySet().containsAll(selector.entrySet());
        }).toList();
    }

    private static Map<String, Object> map(Map<String, Object> m, String key) {
        Object v = m.get(key);
        assertThat(v).as(key + " in " + m).isInstanceOf(Map.class);
        return (Map<String, Object>) v;
    }

    private List<Map<String, Object>> objects() throws Exception {
        ChildProcess.Result r = validate(manifests());
        assertThat(r.exitCode()).as(r.output()).isZero();
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object o : (List<?>) StrictJson.parse(r.stdout())) {
            objects.add((Map<String, Object>) ((Map<String, Object>) o).get("object"));
        }
        return objects;
    }

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            List<Path> yaml = files.filter(p -> p.toString().endsWith(".yaml")).sorted()
                    .toList();
            assertThat(yaml).extracting(p -> p.getFileName().toString())
                    .containsExactly("deployment.yaml", "statefulset.yaml");
            return yaml;
        }
    }

    private static ChildProcess.Result validate(List<Path> files) throws Exception {
        List<String> command = new ArrayList<>(List.of(NodeTools.node(), "validate.mjs"));
        files.forEach(f -> command.add(f.toString()));
        return run(command.toArray(String[]::new));
    }

    private static ChildProcess.Result run(String... command) throws Exception {
        return ChildProcess.run(new ProcessBuilder(command).directory(VALIDATOR.toFile()),
                Duration.ofSeconds(110));
    }
}
