package io.idmint.hibernate;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.LongFunction;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * Where the ID generators come from: Hibernate properties holding the application's generator
 * objects (the Spring Boot auto-configuration sets them from the starter's beans), or a
 * standalone generator for {@link IdmintId} when there is none.
 */
public final class IdmintHibernate {

    /** Hibernate property: the {@link io.idmint.IdGenerator} behind {@link IdmintId}. */
    public static final String ID_GENERATOR = "idmint.hibernate.id-generator";
    /**
     * Hibernate property: the {@link io.idmint.segment.SegmentGenerator} behind {@link
     * IdmintSegment}.
     */
    public static final String SEGMENT_GENERATOR = "idmint.hibernate.segment-generator";
    /** Hibernate property: the {@link io.idmint.spi.RangeStore} that creates missing tags. */
    public static final String RANGE_STORE = "idmint.hibernate.range-store";
    /** Hibernate property: the {@link io.idmint.segment.Serials} behind {@link IdmintSerial}. */
    public static final String SERIALS = "idmint.hibernate.serials";
    /**
     * Hibernate property: the {@code io.idmint.codes.CodeCodec} (idmint-codes) behind
     * {@code @IdmintId(code = true)}.
     */
    public static final String CODES = "idmint.hibernate.codes";

    private IdmintHibernate() {
    }

    /** The object set under {@code key} in the Hibernate properties, or null. */
    static <T> T setting(GeneratorCreationContext context, String key, Class<T> type) {
        Map<String, Object> settings = context.getServiceRegistry()
                .requireService(ConfigurationService.class).getSettings();
        Object value = settings.get(key);
        if (value != null && !type.isInstance(value)) {
            throw new IllegalArgumentException("Hibernate property " + key + " holds a "
                    + value.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(value);
    }

    /**
     * The public codes of IDs, from the codec in {@value #CODES}.
     *
     * @param where names the annotation and attribute, for the message
     * @throws IllegalArgumentException when there is none
     */
    static LongFunction<String> codes(GeneratorCreationContext context, String where) {
        Object codec = context.getServiceRegistry().requireService(ConfigurationService.class)
                .getSettings().get(CODES);
        if (codec == null) {
            throw new IllegalArgumentException(where + " needs the application's code key: set "
                    + "idmint.codes.key (or idmint.codes.key-file) with the Spring Boot starter, "
                    + "or an io.idmint.codes.CodeCodec in the Hibernate property " + CODES);
        }
        return CodeForm.of(codec);
    }

    /** One generator per JVM for applications that pass none, released at JVM exit. */
    static IdGenerator standalone() {
        return Standalone.IDS;
    }

    private static final class Standalone {
        static final IdGenerator IDS = start();

        private static IdGenerator start() {
            Path dir = Path.of(System.getProperty("idmint.data-dir", "data"));
            WorkerRegistry registry = WorkerRegistries.local(dir);
            IdGenerator ids = Snowflake.newBuilder().registry(registry).build();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                ids.close();
                registry.close();
            }, "idmint-hibernate-release"));
            return ids;
        }
    }
}
