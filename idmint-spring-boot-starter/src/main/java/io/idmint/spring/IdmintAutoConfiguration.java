package io.idmint.spring;

import io.idmint.FencedUuidV7;
import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.CodeSettings;
import io.idmint.codes.Keys;
import io.idmint.micrometer.IdmintMetrics;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Serials;
import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;

/**
 * idmint's beans, each replaceable by one of the application's own. The generators are closed
 * when the context closes, before the registry and the store they use: the worker is released
 * with its final high-water mark. Segments are served from {@code idmint.segment.store}, else,
 * with idmint-jdbc present, from the application's own {@link DataSource}.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@EnableConfigurationProperties(IdmintProperties.class)
public class IdmintAutoConfiguration {

    /**
     * The datacenter's name: read from the environment, not bound as a property of
     * {@link IdmintProperties}, since {@code idmint.datacenter} holds the datacenter's ID itself.
     */
    static final String DATACENTER_NAME = "idmint.datacenter.name";

    /** How often new segment tags get their meters. */
    static final Duration SEGMENT_METER_REFRESH = Duration.ofSeconds(10);

    @Bean
    @ConditionalOnMissingBean
    IdmintSettings idmintSettings(IdmintProperties properties, Environment environment) {
        if (environment.containsProperty("idmint.datacenter-name")) {
            throw new IllegalArgumentException("idmint.datacenter-name is now "
                    + "idmint.datacenter.name, the server's key datacenter.name: rename it");
        }
        return new IdmintSettings(properties,
                environment.getProperty(DATACENTER_NAME));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public WorkerRegistry idmintWorkerRegistry(IdmintSettings settings) {
        return settings.registry();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public IdGenerator idGenerator(IdmintSettings settings, WorkerRegistry registry,
            ObjectProvider<GeneratorListener> listener) {
        return settings.generator(registry, listener.getIfUnique(() -> GeneratorListener.NONE));
    }

    /**
     * Fenced UUIDv7s over the application's IdGenerator: {@code UUID} keys with the IDs'
     * guarantee. Lazy, so an application whose layout a UUIDv7 cannot hold starts, and fails
     * only where it asks for them, with the reason.
     */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    @ConditionalOnBean(IdGenerator.class)
    public FencedUuidV7 fencedUuids(IdGenerator ids) {
        return FencedUuidV7.over(ids);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "idmint.segment", name = "store")
    public RangeStore idmintRangeStore(IdmintSettings settings) {
        return settings.rangeStore();
    }

    /**
     * Serials (docs/serials.md) on the segment store: numbers such as a per-day invoice number,
     * defined once in the store and minted here; with codes configured (and idmint-codes
     * present), templates may write a counter's public code, {@code {code:BITS}}.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RangeStore.class)
    public Serials serials(RangeStore store, IdmintProperties properties) {
        Serials.Builder b = Serials.newBuilder().store(store);
        if (ApplicationCodes.PRESENT && CodesConfiguration.configured(properties.getCodes())) {
            b.codes(CodesConfiguration.counterCodes(properties));
        }
        return b.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(RangeStore.class)
    public SegmentGenerator segmentGenerator(IdmintSettings settings, RangeStore store) {
        return settings.segmentGenerator(store);
    }

    /**
     * Segments on the application's own DataSource, when it has one and names no store:
     * idmint's table, created on first use; each allocation a transaction of its own on a
     * connection of its own, so none of the application's transactions ever wraps one.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.idmint.jdbc.JdbcRangeStores")
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnExpression("'${idmint.segment.store:}' == ''")
    static class DataSourceSegments {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        public RangeStore idmintDataSourceRangeStore(DataSource dataSource,
                IdmintProperties properties) {
            return io.idmint.jdbc.JdbcRangeStores.open(dataSource, properties.getNamespace());
        }
    }

    /**
     * The public codes codec, when idmint-codes is present and codes are configured: a key (or
     * key file), retired keys (refused without a current key) or development mode.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(CodeCodec.class)
    @ConditionalOnExpression("'${idmint.codes.key:}' != '' or '${idmint.codes.key-file:}' != ''"
            + " or '${idmint.codes.old-keys:}' != '' or '${idmint.codes.dev:false}' != 'false'")
    static class CodesConfiguration {

        private static final Log LOG = LogFactory.getLog(IdmintAutoConfiguration.class);
        /** The domain of IDs' codes (CodeCodec.bits() of the default codec). */
        private static final int ID_BITS = 63;

        @Bean
        @ConditionalOnMissingBean
        public CodeCodec idmintCodes(IdmintProperties properties) {
            return codecs(properties).apply(ID_BITS, "");
        }

        /** Whether the properties configure codes: the condition of this configuration. */
        static boolean configured(IdmintProperties.Codes c) {
            return blankToNull(c.getKey()) != null || blankToNull(c.getKeyFile()) != null
                    || blankToNull(c.getOldKeys()) != null
                    || c.getDev() != null && !"false".equals(c.getDev());
        }

        /**
         * Serials' {@code {code:BITS}}: given a serial and the bits, its counters' encoder (the
         * serial's name as tweak), over the configured keys.
         */
        static BiFunction<String, Integer, LongFunction<String>> counterCodes(
                IdmintProperties properties) {
            BiFunction<Integer, String, CodeCodec> codecs = codecs(properties);
            return (serial, bits) -> codecs.apply(bits, serial)::encode;
        }

        /**
         * Codecs over the configured keys by bits and tweak ({@link CodeSettings#codecs}), the
         * properties checked naming the bad one; with codes.dev, a random key, logged.
         */
        private static BiFunction<Integer, String, CodeCodec> codecs(
                IdmintProperties properties) {
            IdmintProperties.Codes c = properties.getCodes();
            int version = IdmintSettings.read("codes.key-version", c.getKeyVersion(),
                    CodeSettings::keyVersion);
            String hex = blankToNull(c.getKey());
            if (hex != null) {
                IdmintSettings.readSecret("codes.key", hex, Keys::fromHex);
            }
            String file = blankToNull(c.getKeyFile());
            if (file != null) {
                IdmintSettings.read("codes.key-file", file, f -> Keys.fromFile(Path.of(f)));
            }
            Map<Integer, String> old = blankToNull(c.getOldKeys()) == null ? null
                    : IdmintSettings.readSecret("codes.old-keys", c.getOldKeys(),
                            CodeSettings::oldKeys);
            boolean dev = IdmintSettings.read("codes.dev", c.getDev(), IdmintSettings::bool);
            BiFunction<Integer, String, CodeCodec> codecs;
            try {
                codecs = CodeSettings.codecs(hex, file == null ? null : Path.of(file), version,
                        old, dev);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("idmint: " + e.getMessage(), e);
            }
            if (dev) {
                LOG.warn("idmint.codes.dev is on: codes use a RANDOM key made at start (key "
                        + "version " + version + "); they change on every restart and no other "
                        + "process can decode them. Never use it in production: set "
                        + "idmint.codes.key or idmint.codes.key-file.");
            }
            return codecs;
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s;
        }
    }

    /**
     * The filler of idmint-entity's {@code @IdmintId} and {@code @IdmintSegment} fields, when
     * idmint-entity is present: Spring Data JDBC ({@link DataJdbcIds}) and idmint-mybatis fill
     * entities with it.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.idmint.entity.EntityIds")
    static class EntityConfiguration {

        @Bean
        @ConditionalOnMissingBean
        public io.idmint.entity.EntityIds idmintEntityIds(ObjectProvider<IdGenerator> ids,
                ObjectProvider<SegmentGenerator> segments, ObjectProvider<RangeStore> store,
                BeanFactory beans) {
            CodeCodec codes = ApplicationCodes.of(beans);
            return io.idmint.entity.EntityIds.newBuilder().ids(ids.getIfUnique())
                    .segments(segments.getIfUnique()).store(store.getIfUnique())
                    .codes(codes == null ? null : codes::encode).build();
        }

        /** Spring Data JDBC's aggregates, filled before they are converted for an insert. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.data.relational.core.mapping.event."
                + "BeforeConvertCallback")
        static class DataJdbc {

            @Bean
            @ConditionalOnMissingBean
            public DataJdbcIds idmintDataJdbcIds(io.idmint.entity.EntityIds entities,
                    ObjectProvider<org.springframework.data.relational.core.mapping
                            .RelationalMappingContext> context) {
                return new DataJdbcIds(entities, context);
            }
        }
    }

    /** Micrometer meters, when idmint-micrometer is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdmintMetrics.class, MeterBinder.class})
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        public IdmintMeterBinder idmintMeterBinder(ObjectProvider<IdGenerator> ids,
                ObjectProvider<SegmentGenerator> segments) {
            return new IdmintMeterBinder(ids, segments, SEGMENT_METER_REFRESH);
        }
    }

    /**
     * idmint's Jackson 2 module (what Spring Boot 3 writes JSON with), when idmint-jackson is
     * present: Boot registers every {@code Module} bean in its {@code ObjectMapper}. It writes
     * every {@code long} property named like an ID as a string ({@code allIdProperties}), and
     * {@code @JsonId(CODE)} with the application's {@link CodeCodec} when there is one.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({io.idmint.jackson.IdmintModule.class,
            com.fasterxml.jackson.databind.Module.class})
    @ConditionalOnBooleanProperty(name = "idmint.jackson.enabled", matchIfMissing = true)
    static class Jackson2Configuration {

        @Bean
        @ConditionalOnMissingBean
        public io.idmint.jackson.IdmintModule idmintJacksonModule(BeanFactory beans) {
            io.idmint.jackson.IdmintModule.Builder b = io.idmint.jackson.IdmintModule.newBuilder()
                    .allIdProperties();
            CodeCodec codes = ApplicationCodes.of(beans);
            return (codes == null ? b : b.codes(codes)).build();
        }
    }

    /**
     * idmint's Jackson 3 module (what Spring Boot 4 writes JSON with), when idmint-jackson3 is
     * present: Boot registers every {@code JacksonModule} bean in its {@code JsonMapper}. Set up
     * as the Jackson 2 one.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({io.idmint.jackson3.IdmintModule.class,
            tools.jackson.databind.JacksonModule.class})
    @ConditionalOnBooleanProperty(name = "idmint.jackson.enabled", matchIfMissing = true)
    static class Jackson3Configuration {

        @Bean
        @ConditionalOnMissingBean
        public io.idmint.jackson3.IdmintModule idmintJackson3Module(BeanFactory beans) {
            io.idmint.jackson3.IdmintModule.Builder b = io.idmint.jackson3.IdmintModule
                    .newBuilder().allIdProperties();
            CodeCodec codes = ApplicationCodes.of(beans);
            return (codes == null ? b : b.codes(codes)).build();
        }
    }

    /** The health indicator on Spring Boot 3. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Boot3HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "idmintHealthIndicator")
        public Boot3HealthIndicator idmintHealthIndicator(IdGenerator ids) {
            return new Boot3HealthIndicator(ids);
        }
    }

    /** The health indicator on Spring Boot 4. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot4HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "idmintHealthIndicator")
        public Boot4HealthIndicator idmintHealthIndicator(IdGenerator ids) {
            return new Boot4HealthIndicator(ids);
        }
    }
}
