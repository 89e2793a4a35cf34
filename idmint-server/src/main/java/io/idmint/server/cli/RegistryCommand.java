package io.idmint.server.cli;

import io.idmint.WorkerRegistries;
import io.idmint.server.config.Config;
import io.idmint.server.json.ApiJson;
import io.idmint.server.json.Json;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idmint registry list|init}: what the worker registry holds, and setting it up ahead of
 * the first node (SQL schemas are otherwise created on first use).
 */
@Command(name = "registry", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows or prepares the worker registry.",
            "  list  every worker of the namespace: holder, high-water mark, lease expiry",
            "  init  connects and creates what the registry needs (e.g. SQL tables), then lists"})
public final class RegistryCommand implements Callable<Integer> {

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ACTION", description = "list or init")
    String action;

    @Option(names = "--json", description = "one JSON object per worker instead of a table")
    boolean json;

    public RegistryCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws RegistryException {
        if (!action.equals("list") && !action.equals("init")) {
            throw new ParameterException(spec.commandLine(), "unknown action '" + action
                    + "'; actions are list and init");
        }
        Config config = ConfigOptions.load(spec, invocation.env());
        String uri = config.get(Config.REGISTRY);
        String namespace = config.get(Config.NAMESPACE);
        PrintWriter out = spec.commandLine().getOut();
        try (WorkerRegistry registry = WorkerRegistries.open(uri, config.get(Config.DATA_DIR))) {
            List<WorkerRecord> workers = registry.list(namespace);
            if (action.equals("init")) {
                spec.commandLine().getErr().println("idmint: registry " + uri + " is ready; "
                        + "namespace '" + namespace + "' has " + workers.size() + " worker(s)");
            }
            if (json) {
                workers.forEach(w -> out.println(json(w)));
            } else {
                out.println(String.format(Locale.ROOT, "%-10s %-6s %-24s %-26s %s", "datacenter",
                        "worker", "high-water mark", "lease expires", "holder"));
                workers.forEach(w -> out.println(String.format(Locale.ROOT,
                        "%-10d %-6d %-24s %-26s %s", w.datacenterId(), w.workerId(),
                        ApiJson.iso(w.hwmMillis()), expiry(w),
                        w.held() ? w.holder() : "(free)")));
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    private static String expiry(WorkerRecord w) {
        if (!w.held()) {
            return "-";
        }
        return w.leaseExpiresMillis() == Long.MAX_VALUE ? "while the process lives"
                : ApiJson.iso(w.leaseExpiresMillis());
    }

    static String json(WorkerRecord w) {
        return new Json().add("datacenter_id", w.datacenterId()).add("worker_id", w.workerId())
                .add("hwm_ms", w.hwmMillis())
                .add("hwm", ApiJson.iso(w.hwmMillis()))
                .add("holder", w.holder())
                .add("lease_expires_ms", w.leaseExpiresMillis(),
                        w.held() && w.leaseExpiresMillis() != Long.MAX_VALUE)
                .toString();
    }
}
