package io.idmint.server.cli;

import io.idmint.Layout;
import io.idmint.jdbc.shardid.LayoutFunctions;
import io.idmint.jdbc.shardid.ShardIdFunction;
import io.idmint.jdbc.shardid.ShardIdFunctions;
import io.idmint.jdbc.shardid.ShardIdFunctions.Verification;
import io.idmint.server.config.Config;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code idmint sql install|verify}: Instagram-style IDs minted by a PL/pgSQL function inside
 * PostgreSQL, with the layout (and epoch) {@code idmint decode} reads. Bad input exits 2 naming
 * it; a database that cannot be reached, or a function that does not match, exits 1.
 */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = {"Installs or verifies ID functions inside a database.",
            "  install    creates <schema>.next_id() for one shard in PostgreSQL (--print: "
                + "show the SQL only)",
            "  verify     checks an installed function against the layout, minting one probe ID",
            "  functions  creates idmint_time(id), idmint_worker(id), …, idmint_lo(ts) and "
                + "idmint_hi(ts) for the layout, in PostgreSQL or MySQL/MariaDB"})
public final class SqlCommand implements Runnable {

    /** The configuration keys both actions read. */
    static final List<Config.Key<?>> KEYS = List.of(Config.LAYOUT, Config.CLOCK_MAX_WAIT);

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing action: install or verify");
    }

    public static CommandLine commandLine(Invocation invocation) {
        CommandLine sql = new CommandLine(new SqlCommand());
        sql.addSubcommand(ConfigOptions.addTo(new CommandLine(new Install(invocation)), KEYS));
        sql.addSubcommand(ConfigOptions.addTo(new CommandLine(new Verify(invocation)), KEYS));
        sql.addSubcommand(ConfigOptions.addTo(new CommandLine(new Functions(invocation)),
                List.of(Config.LAYOUT)));
        return sql;
    }

    /** The options that say which function: schema, shard, epoch, modulus, database. */
    static final class Target {
        @Option(names = "--schema", required = true, paramLabel = "S",
                description = "the schema of the function S.next_id() (one per shard)")
        String schema;

        @Option(names = "--shard", paramLabel = "N", description = "the shard; default: the "
                + "shard schema S was first installed with (table idmint.shard)")
        Integer shard;

        @Option(names = "--epoch", paramLabel = "EPOCH", description = "the layout's epoch, "
                + "Unix ms or ISO-8601 (same as --layout SPEC,epoch=EPOCH)")
        String epoch;

        @Option(names = "--modulus", paramLabel = "M", description = "nextval %% M fills the "
                + "sequence field; default: the field's size (2^bits)")
        Long modulus;

        @Option(names = "--jdbc-url", paramLabel = "URL",
                description = "jdbc:postgresql://host:port/db?user=…")
        String jdbcUrl;

        /**
         * The layout with the epoch applied; a layout spec that has one already refuses it, and
         * so does a 64-bit layout, whose IDs would be negative BIGINTs.
         */
        Layout layout(Config config) {
            Layout layout = withEpoch(config);
            if (layout.unsigned()) {
                throw new IllegalArgumentException("layout " + layout.spec() + " uses all 64 "
                        + "bits; idmint mints at most 63, so that every ID is a positive bigint");
            }
            return layout;
        }

        private Layout withEpoch(Config config) {
            Layout layout = config.get(Config.LAYOUT);
            if (epoch == null) {
                return layout;
            }
            Config.Setting s = config.setting(Config.LAYOUT);
            if (s.value().toLowerCase(Locale.ROOT).contains("epoch=")) {
                throw new IllegalArgumentException("--epoch " + epoch + ": layout '" + s.value()
                        + "' (from " + s.source() + ") already sets an epoch; give it once");
            }
            return Layout.parse(s.value() + ",epoch=" + epoch);
        }

        Connection connect() {
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("--jdbc-url " + (jdbcUrl == null ? "is missing"
                        : "'" + display() + "' is not a jdbc:postgresql: URL")
                        + "; the function is PL/pgSQL");
            }
            try {
                return DriverManager.getConnection(jdbcUrl);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot connect to " + display() + ": "
                        + e.getMessage(), e);
            }
        }

        /** The function, its shard from --shard or, failing that, from the database. */
        ShardIdFunction function(Config config, Connection c) throws SQLException {
            Layout layout = layout(config);
            int n;
            if (shard != null) {
                n = shard;
            } else {
                OptionalInt configured = c == null ? OptionalInt.empty()
                        : ShardIdFunctions.configuredShard(c, schema);
                if (configured.isEmpty()) {
                    throw new IllegalArgumentException("schema '" + schema + "' has no "
                            + "configured shard" + (c == null ? " that can be read without "
                            + "--jdbc-url" : " in idmint.shard") + "; pass --shard N");
                }
                n = configured.getAsInt();
            }
            return ShardIdFunction.of(layout, schema, n, modulus != null ? modulus
                    : ShardIdFunction.defaultModulus(layout), config.get(Config.CLOCK_MAX_WAIT));
        }

        /** The URL without its query or credentials, for messages. */
        String display() {
            String base = jdbcUrl.split("\\?", 2)[0];
            int at = base.indexOf('@');
            return at < 0 ? base : "jdbc:postgresql://" + base.substring(at + 1);
        }
    }

    @Command(name = "install", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Creates S.next_id() for one shard, with its sequence, the shard "
                    + "registry idmint.shard and the shard's high-water mark, in one transaction.")
    static final class Install implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Mixin
        Target target = new Target();

        @Option(names = "--print", description = "print the SQL for review; change nothing")
        boolean print;

        Install(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws SQLException {
            Config config = ConfigOptions.load(spec, invocation.env());
            if (print && target.jdbcUrl == null) {
                out(target.function(config, null).script());
                return ExitCode.OK;
            }
            target.layout(config); // bad input before the connection
            try (Connection c = target.connect()) {
                ShardIdFunction f = target.function(config, c);
                if (print) {
                    out(f.script());
                    return ExitCode.OK;
                }
                try {
                    ShardIdFunctions.install(c, f);
                } catch (SQLException e) {
                    if (ShardIdFunction.NOT_REGISTERED.equals(e.getSQLState())) {
                        throw new IllegalArgumentException(e.getMessage().split("\n", 2)[0]
                                .replaceFirst("^ERROR: (idmint: )?", ""), e);
                    }
                    throw new IllegalStateException("install failed at " + target.display()
                            + ": " + e.getMessage(), e);
                }
                spec.commandLine().getErr().println("idmint: installed " + f.functionName()
                        + "() for shard " + f.shard() + ", layout " + f.layout().spec()
                        + ", nextval % " + f.modulus());
            }
            return ExitCode.OK;
        }

        private void out(String text) {
            PrintWriter out = spec.commandLine().getOut();
            out.print(text);
            out.flush();
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Checks S.next_id() against the layout: its registry row, signature, "
                    + "constants and text, then mints one probe ID and decodes it.")
    static final class Verify implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Mixin
        Target target = new Target();

        Verify(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws SQLException {
            Config config = ConfigOptions.load(spec, invocation.env());
            target.layout(config);
            try (Connection c = target.connect()) {
                ShardIdFunction f = target.function(config, c);
                Verification v = ShardIdFunctions.verify(c, f);
                if (!v.ok()) {
                    PrintWriter err = spec.commandLine().getErr();
                    v.problems().forEach(p -> err.println("idmint: sql verify: " + p));
                    return ExitCode.FAILURE;
                }
                PrintWriter out = spec.commandLine().getOut();
                out.println("ok: " + f.functionName() + "() matches shard " + f.shard()
                        + ", layout " + f.layout().spec() + ", nextval % " + f.modulus()
                        + "; probe " + v.probeId() + " decodes to shard " + v.probe().shardId()
                        + " at " + v.probe().timestamp() + ", sequence " + v.probe().sequence());
                out.flush();
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "functions", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Creates (or replaces) SQL functions that read the layout's IDs: "
                    + "idmint_time(id), one per field (idmint_datacenter, idmint_worker, "
                    + "idmint_shard, idmint_sequence), and idmint_lo(ts)/idmint_hi(ts), so that "
                    + "WHERE id >= idmint_lo(a) AND id < idmint_hi(b) selects the window [a, b).")
    static final class Functions implements Callable<Integer> {

        private final Invocation invocation;

        @Spec
        CommandSpec spec;

        @Option(names = "--dialect", paramLabel = "D", description = "postgresql or mysql "
                + "(MySQL and MariaDB); default: from --jdbc-url")
        String dialect;

        @Option(names = "--schema", paramLabel = "S", description = "the schema (PostgreSQL) "
                + "or database (MySQL) to create them in; default: the connection's")
        String schema;

        @Option(names = "--jdbc-url", paramLabel = "URL",
                description = "jdbc:postgresql:…, jdbc:mysql:… or jdbc:mariadb:…")
        String jdbcUrl;

        @Option(names = "--print", description = "print the SQL for review; change nothing")
        boolean print;

        Functions(Invocation invocation) {
            this.invocation = invocation;
        }

        @Override
        public Integer call() throws SQLException {
            Config config = ConfigOptions.load(spec, invocation.env());
            LayoutFunctions.Dialect d = dialect();
            LayoutFunctions f = LayoutFunctions.of(config.get(Config.LAYOUT), d, schema);
            if (print) {
                PrintWriter out = spec.commandLine().getOut();
                out.print(f.script());
                out.flush();
                return ExitCode.OK;
            }
            if (jdbcUrl == null) {
                throw new IllegalArgumentException("--jdbc-url is missing (or --print to show "
                        + "the SQL)");
            }
            String where = jdbcUrl.split("[?]", 2)[0].replaceFirst("//[^/@]*@", "//");
            try (Connection c = DriverManager.getConnection(jdbcUrl)) {
                f.install(c);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot install the functions at " + where + ": "
                        + e.getMessage(), e);
            }
            spec.commandLine().getErr().println("idmint: installed " + String.join("(), ",
                    f.functionNames()) + "() for layout " + f.layout().spec() + " at " + where);
            return ExitCode.OK;
        }

        private LayoutFunctions.Dialect dialect() {
            if (dialect != null) {
                return switch (dialect.toLowerCase(Locale.ROOT)) {
                    case "postgresql", "postgres" -> LayoutFunctions.Dialect.POSTGRESQL;
                    case "mysql", "mariadb" -> LayoutFunctions.Dialect.MYSQL;
                    default -> throw new IllegalArgumentException("--dialect '" + dialect
                            + "' is neither postgresql nor mysql");
                };
            }
            if (jdbcUrl == null) {
                throw new IllegalArgumentException("--dialect is missing: give --dialect "
                        + "postgresql|mysql, or --jdbc-url");
            }
            return LayoutFunctions.Dialect.ofUrl(jdbcUrl);
        }
    }
}
