package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.Codes;
import io.idmint.codes.Keys;
import io.idmint.segment.SegmentGenerator;
import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.ClassUtils;

class IdmintAutoConfigurationTest {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdmintAutoConfiguration.class))
                .withPropertyValues("idmint.data-dir=" + dir);
    }

    @Test
    void defaults_idGeneratorOnTheStaticRegistry_noSegmentsNoCodes() {
        runner().withPropertyValues("idmint.worker=9").run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(IdGenerator.class)
                    .doesNotHaveBean(SegmentGenerator.class).doesNotHaveBean(CodeCodec.class)
                    .doesNotHaveBean(io.idmint.segment.Serials.class);
            IdGenerator ids = ctx.getBean(IdGenerator.class);
            long a = ids.nextId();
            assertThat(ids.nextId()).isGreaterThan(a);
            assertThat(ids.layout().decode(a).workerId()).isEqualTo(9);
            assertThat(ids.status().state()).isEqualTo(LeaseState.ACTIVE);
            java.util.UUID uuid = ctx.getBean(io.idmint.FencedUuidV7.class).next();
            assertThat(uuid.version()).isEqualTo(7);
            long carried = io.idmint.FencedUuidV7.idOf(uuid, ids.layout());
            assertThat(carried).isGreaterThan(a);
            assertThat(ids.layout().decode(carried).workerId()).isEqualTo(9);
        });
    }

    @Test
    void fencedUuids_onALayoutTheyCannotHold_startAnyway_andFailWhereAskedFor() {
        runner().withPropertyValues("idmint.worker=2", "idmint.layout=time=48,worker=4,sequence=11")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(IdGenerator.class).nextId()).isPositive();
                    assertThatThrownBy(() -> ctx.getBean(io.idmint.FencedUuidV7.class))
                            .rootCause().hasMessageContaining("has times a UUIDv7 cannot hold");
                });
    }

    @Test
    void close_releasesTheWorkerWithItsFinalHwm() {
        AtomicLong last = new AtomicLong();
        AtomicReference<IdGenerator> closed = new AtomicReference<>();
        runner().withPropertyValues("idmint.worker=3").run(ctx -> {
            IdGenerator ids = ctx.getBean(IdGenerator.class);
            closed.set(ids);
            for (int i = 0; i < 1000; i++) {
                last.set(ids.nextId());
            }
        });
        assertThat(closed.get().status().state()).isEqualTo(LeaseState.RELEASED);
        try (WorkerRegistry registry = WorkerRegistries.local(dir);
             IdGenerator next = Snowflake.newBuilder().registry(registry).preferredWorkerId(3)
                     .build()) {
            assertThat(next.status().workerId()).isEqualTo(3);
            assertThat(next.nextId()).isGreaterThan(last.get());
        }
    }

    @Test
    void segmentStore_givesASegmentGenerator_tagsCreatedOnFirstUse() {
        runner().withPropertyValues("idmint.segment.store=jdbc:h2:mem:seg;DB_CLOSE_DELAY=-1",
                "idmint.segment.auto-create=true", "idmint.segment.step=50",
                // The first fetch opens the database and creates its table: slow on a busy host.
                "idmint.segment.fetch-timeout=30s").run(ctx -> {
                    SegmentGenerator segments = ctx.getBean(SegmentGenerator.class);
                    long a = segments.next("order");
                    assertThat(segments.next("order")).isEqualTo(a + 1);
                    // Serials on the same store.
                    io.idmint.segment.Serials serials =
                            ctx.getBean(io.idmint.segment.Serials.class);
                    serials.define(io.idmint.segment.SerialDefinition.newBuilder("receipt")
                            .template("R-{counter:5}").build());
                    assertThat(serials.serial("receipt").next()).isEqualTo("R-00001");
                    assertThat(serials.serial("receipt").next()).isEqualTo("R-00002");
                    // No codes configured: a template with a counter's code is refused.
                    assertThatThrownBy(() -> serials.define(io.idmint.segment.SerialDefinition
                            .newBuilder("ticket").template("T-{code:30}").build()))
                            .hasMessageContaining("{code:30}");
                });
    }

    @Test
    void serials_writeCountersPublicCodes_withTheConfiguredKey() {
        runner().withPropertyValues("idmint.segment.store=jdbc:h2:mem:segc;DB_CLOSE_DELAY=-1",
                "idmint.segment.fetch-timeout=30s",
                "idmint.codes.key=000102030405060708090a0b0c0d0e0f").run(ctx -> {
                    io.idmint.segment.Serials serials =
                            ctx.getBean(io.idmint.segment.Serials.class);
                    serials.define(io.idmint.segment.SerialDefinition.newBuilder("ticket")
                            .template("T-{code:30}").build());
                    String first = serials.serial("ticket").next();
                    // 30 bits: the key version, 6 symbols, the check symbol.
                    assertThat(first).matches("T-[0-9A-Z]{8}");
                    CodeCodec codec = Codes.newBuilder()
                            .key(1, Keys.fromHex(
                                    "000102030405060708090a0b0c0d0e0f"))
                            .bits(30).tweak("ticket".getBytes(StandardCharsets.UTF_8)).build();
                    assertThat(codec.decode(first.substring(2))).isEqualTo(1);
                    assertThat(ctx.getBean(CodeCodec.class).bits()).isEqualTo(63);
                });
    }

    @Test
    void dataSource_withoutAStore_servesSegmentsFromIt_inIdmintsOwnTable() {
        JdbcDataSource app = new JdbcDataSource();
        app.setURL("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1");
        runner().withBean(DataSource.class, () -> app)
                .withPropertyValues("idmint.segment.auto-create=true",
                        "idmint.segment.fetch-timeout=30s")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(RangeStore.class)
                            .hasBean("idmintDataSourceRangeStore");
                    SegmentGenerator segments = ctx.getBean(SegmentGenerator.class);
                    long a = segments.next("order");
                    assertThat(segments.next("order")).isEqualTo(a + 1);
                    assertThat(tags(app)).containsExactly("order");
                });
    }

    @Test
    void dataSource_andAStore_theStoreNamedWins_andTheApplicationsDatabaseIsLeftAlone() {
        JdbcDataSource app = new JdbcDataSource();
        app.setURL("jdbc:h2:mem:app2;DB_CLOSE_DELAY=-1");
        runner().withBean(DataSource.class, () -> app)
                .withPropertyValues("idmint.segment.store=jdbc:h2:mem:named;DB_CLOSE_DELAY=-1",
                        "idmint.segment.auto-create=true", "idmint.segment.fetch-timeout=30s")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(RangeStore.class)
                            .hasBean("idmintRangeStore");
                    ctx.getBean(SegmentGenerator.class).next("order");
                    assertThat(tags(app)).isNull();
                });
    }

    @Test
    void dataSource_onAnH2FileThatWritesCommitsLate_failsTheStartSayingWhy() {
        JdbcDataSource app = new JdbcDataSource();
        app.setURL("jdbc:h2:" + dir.resolve("app"));
        runner().withBean(DataSource.class, () -> app).run(ctx -> assertThat(ctx).hasFailed()
                .getFailure().rootCause().hasMessageContaining("add ;WRITE_DELAY=0 to its URL, "
                        + "or set idmint.segment.store"));
    }

    /** The tags in idmint's table of {@code db}, or null when it has no such table. */
    private static List<String> tags(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); ResultSet t = c.getMetaData().getTables(null,
                null, "IDMINT_SEGMENT", null)) {
            if (!t.next()) {
                return null;
            }
        }
        List<String> tags = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT tag FROM idmint_segment ORDER BY tag")) {
            while (rs.next()) {
                tags.add(rs.getString(1));
            }
        }
        return tags;
    }

    @Test
    void serverValues_takeEffect_datacenterNameWorkersAutoRandomStart() {
        runner().withPropertyValues("idmint.datacenter=3", "idmint.datacenter.name=eu-west",
                "idmint.workers=auto", "idmint.sequence.start=random",
                "idmint.sequence.random-span=64", "idmint.clock.max-forward-step=2s",
                "idmint.clock.max-skew=5s").run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    IdGenerator ids = ctx.getBean(IdGenerator.class);
                    assertThat(ids.layout().decode(ids.nextId()).datacenterId()).isEqualTo(3);
                    assertThat(ids.status().workers())
                            .hasSize(Runtime.getRuntime().availableProcessors());
                });
        // The datacenter holds its name: a second name for it is refused.
        runner().withPropertyValues("idmint.datacenter=3", "idmint.datacenter.name=us-east")
                .run(ctx -> assertThat(ctx).hasFailed().getFailure()
                        .rootCause().hasMessageContaining("eu-west"));
    }

    @Test
    void datacenterName_inYaml_beside_theDatacentersId() throws Exception {
        String yaml = "idmint:\n  datacenter: 4\nidmint.datacenter.name: ap-south\n";
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        runner().withInitializer(ctx -> sources.forEach(ctx.getEnvironment().getPropertySources()
                ::addFirst)).run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    IdGenerator ids = ctx.getBean(IdGenerator.class);
                    assertThat(ids.layout().decode(ids.nextId()).datacenterId()).isEqualTo(4);
                });
        // The name was taken for datacenter 4: another one for it is refused, naming it.
        runner().withPropertyValues("idmint.datacenter=4", "idmint.datacenter.name=eu-north")
                .run(ctx -> assertThat(ctx).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("ap-south"));
    }

    @Test
    void oldDatacenterNameProperty_failsStartSayingItsNewName() {
        runner().withPropertyValues("idmint.datacenter-name=eu-west").run(ctx -> assertThat(ctx)
                .hasFailed().getFailure().rootCause().hasMessage("idmint.datacenter-name is now "
                        + "idmint.datacenter.name, the server's key datacenter.name: rename it"));
    }

    @Test
    void codesOldKeys_decodeTheRetiredKeysCodes_newCodesUseTheCurrentKey() {
        String retired = "000102030405060708090a0b0c0d0e0f";
        CodeCodec before = Codes.newBuilder().key(1, Keys.fromHex(retired)).build();
        String old = before.encode(12345);
        runner().withPropertyValues("idmint.codes.key=0f0e0d0c0b0a09080706050403020100",
                "idmint.codes.key-version=2", "idmint.codes.old-keys=1:" + retired)
                .run(ctx -> {
                    CodeCodec codes = ctx.getBean(CodeCodec.class);
                    assertThat(codes.decode(old)).isEqualTo(12345);
                    assertThat(codes.encode(12345)).isNotEqualTo(old);
                });
        runner().withPropertyValues("idmint.codes.old-keys=1:" + retired).run(ctx -> assertThat(
                ctx).hasFailed().getFailure().rootCause().hasMessageContaining(
                        "codes.old-keys needs a current key as well"));
    }

    @Test
    void codesDev_makesARandomKeyEachStart() {
        List<String> codes = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            runner().withPropertyValues("idmint.codes.dev=true").run(ctx -> codes.add(
                    ctx.getBean(CodeCodec.class).encode(12345)));
        }
        assertThat(codes).hasSize(2).doesNotHaveDuplicates();
    }

    @Test
    void codesKey_givesTheCodec() {
        runner().withPropertyValues("idmint.codes.key=000102030405060708090a0b0c0d0e0f")
                .run(ctx -> {
                    CodeCodec codes = ctx.getBean(CodeCodec.class);
                    assertThat(codes.decode(codes.encode(12345))).isEqualTo(12345);
                });
    }

    /**
     * idmint's Jackson module for the line on the class path (Jackson 3 on Boot 4, Jackson 2 on
     * Boot 3.5), off by the property, and none of the starter's when the application has one.
     * {@link IdmintJacksonIT} shows what it writes.
     */
    @Test
    @SuppressWarnings("unchecked")
    void jackson_moduleOfTheBootLine_offByProperty_theApplicationsOwnWins() throws Exception {
        Class<?> module = Class.forName(ClassUtils.isPresent("tools.jackson.databind.JacksonModule",
                null) ? "io.idmint.jackson3.IdmintModule" : "io.idmint.jackson.IdmintModule");
        runner().run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(module));
        runner().withPropertyValues("idmint.jackson.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(module));
        runner().withPropertyValues("idmint.jackson.enabled=maybe")
                .run(ctx -> assertThat(ctx).hasFailed().getFailure()
                        .hasStackTraceContaining("idmint.jackson.enabled"));

        Object builder = module.getMethod("newBuilder").invoke(null);
        Object own = builder.getClass().getMethod("build").invoke(builder);
        runner().withBean("own", (Class<Object>) module, () -> own).run(ctx -> assertThat(ctx)
                .getBean(module).isSameAs(own));
    }

    @ParameterizedTest(name = "idmint.{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "registry|nosuch://x",
        "registry|not a uri",
        "data-dir|/proc/version/data",
        "layout|time=41,worker=99",
        "namespace|bad name!",
        "datacenter|-1",
        "datacenter|north",
        "datacenter|99",
        "datacenter.name|bad name!",
        "worker|x",
        "worker|5000",
        "workers|0",
        "workers|many",
        "workers|1025",
        "clock.max-forward-step|0ms",
        "clock.max-skew|forever",
        "sequence.start|sideways",
        "sequence.random-span|1",
        "clock.policy|sometimes",
        "clock.max-wait|forever",
        "clock.max-wait|1h",
        "sequence.max-lead|2m",
        "lease.ttl|30",
        "lease.ttl|1s",
        "lease.keepalive|0s",
        "lease.store-timeout|1h",
        "lease.reservation|1ms",
        "segment.store|nosuch://x",
        "segment.step|0",
        "segment.min-step|-3",
        "segment.max-step|big",
        "segment.target-duration|soon",
        "segment.fetch-timeout|-1s",
        "segment.auto-create|maybe",
        "segment.order|random",
        "codes.key-version|99",
        "codes.key-file|/no/such/key",
        "codes.dev|maybe",
    })
    void badValue_failsStartupNamingThePropertyAndTheValue(String property, String value) {
        assertThat(startupFailure(property, value)).contains("idmint." + property + " = '"
                + value + "'");
    }

    @ParameterizedTest(name = "idmint.{0}=…")
    @CsvSource(delimiter = '|', value = {
        "codes.key|00010203040506070809",
        "codes.old-keys|2:00010203040506070809",
    })
    void badKey_failsStartupNamingThePropertyButNeverTheKey(String property, String value) {
        assertThat(startupFailure(property, value)).contains("idmint." + property
                + " (not shown): ").contains("hex key has 20 characters")
                .doesNotContain("00010203040506070809");
    }

    static class Voucher {
        @io.idmint.entity.IdmintId(code = true)
        String code;
        @io.idmint.entity.IdmintSegment("voucher")
        Long number;
    }

    @Test
    void entityIds_drawFromTheApplicationsBeans_andDataJdbcOnlyWithSpringDataJdbc() {
        runner().withPropertyValues("idmint.codes.key=000102030405060708090a0b0c0d0e0f",
                "idmint.segment.store=jdbc:h2:mem:vouchers;DB_CLOSE_DELAY=-1").run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(DataJdbcIds.class);
                    Voucher v = ctx.getBean(io.idmint.entity.EntityIds.class).fill(new Voucher());
                    IdGenerator ids = ctx.getBean(IdGenerator.class);
                    assertThat(ids.layout().decode(ctx.getBean(CodeCodec.class).decode(v.code))
                            .workerId()).isEqualTo(ids.status().workerId());
                    assertThat(v.number).isEqualTo(1L);
                });
        runner().withClassLoader(new FilteredClassLoader(
                org.springframework.data.relational.core.mapping.event.BeforeConvertCallback.class))
                .run(ctx -> assertThat(ctx).hasNotFailed()
                        .hasSingleBean(io.idmint.entity.EntityIds.class)
                        .doesNotHaveBean(DataJdbcIds.class));
        runner().withClassLoader(new FilteredClassLoader(io.idmint.entity.EntityIds.class))
                .run(ctx -> assertThat(ctx).hasNotFailed()
                        .doesNotHaveBean(io.idmint.entity.EntityIds.class));
    }

    /** Every message in the start-up failure's chain, one per line. */
    private String startupFailure(String property, String value) {
        StringBuilder messages = new StringBuilder();
        ApplicationContextRunner r = runner().withPropertyValues("idmint." + property + "="
                + value);
        if (property.startsWith("segment.") && !property.equals("segment.store")) {
            r = r.withPropertyValues("idmint.segment.store=jdbc:h2:mem:bad;DB_CLOSE_DELAY=-1");
        }
        if (property.equals("codes.key-version")) {
            r = r.withPropertyValues("idmint.codes.key=000102030405060708090a0b0c0d0e0f");
        }
        r.run(ctx -> {
            assertThat(ctx).hasFailed();
            for (Throwable t = ctx.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
            }
        });
        return messages.toString();
    }
}
