package io.idmint.hibernate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.Instant;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.junit.jupiter.api.Test;

/**
 * An attribute that cannot hold what {@link IdmintId} or {@link IdmintSegment} makes fails when
 * Hibernate starts, naming it: no database is needed to find out.
 */
class AttributeTypesTest {

    @Test
    void idmintId_onAnInstant_failsAtStart_namingTheAttributeAndTypes() {
        assertThatThrownBy(() -> start(StampedEvent.class))
                .rootCause().hasMessage("@IdmintId on " + StampedEvent.class.getName()
                        + ".stamp: the attribute must be a long, Long, String or UUID, not a "
                        + "java.time.Instant");
    }

    @Test
    void idmintSegment_onAnInt_failsAtStart_namingTheAttribute() {
        assertThatThrownBy(() -> start(IntNumbered.class))
                .rootCause().hasMessage("@IdmintSegment on " + IntNumbered.class.getName()
                        + ".number: the attribute must be a long, Long or String, not a int");
    }

    @Test
    void idmintSegment_onAUuid_failsAtStart_aCounterIsNoUuid() {
        assertThatThrownBy(() -> start(UuidNumbered.class))
                .rootCause().hasMessage("@IdmintSegment on " + UuidNumbered.class.getName()
                        + ".number: the attribute must be a long, Long or String, not a "
                        + "java.util.UUID");
    }

    @Test
    void idmintSerial_onALong_failsAtStart_aSerialIsText() {
        assertThatThrownBy(() -> start(LongSerial.class))
                .rootCause().hasMessage("@IdmintSerial(\"invoice\") on "
                        + LongSerial.class.getName() + ".number: a serial's value is text; the "
                        + "attribute must be a String, not a java.lang.Long");
    }

    @Test
    void code_onALong_failsAtStart_sayingACodeIsAString() {
        assertThatThrownBy(() -> start(LongCoded.class))
                .rootCause().hasMessage("@IdmintId on " + LongCoded.class.getName()
                        + ".publicNumber: code = true makes a public code, a String; the "
                        + "attribute is a java.lang.Long");
    }

    @Test
    void code_withoutACodeKey_failsAtStart_namingWhereTheKeyGoes() {
        assertThatThrownBy(() -> start(StringCoded.class))
                .rootCause().hasMessage("@IdmintId(code = true) on " + StringCoded.class.getName()
                        + ".publicNumber needs the application's code key: set idmint.codes.key "
                        + "(or idmint.codes.key-file) with the Spring Boot starter, or an "
                        + "io.idmint.codes.CodeCodec in the Hibernate property "
                        + IdmintHibernate.CODES);
    }

    /** Builds a session factory for one entity, without a database. */
    private static void start(Class<?> entity) {
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                .applySetting("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
                .applySetting("hibernate.boot.allow_jdbc_metadata_access", "false")
                .applySetting("hibernate.hbm2ddl.auto", "none")
                .build();
        try {
            new MetadataSources(registry).addAnnotatedClass(entity).buildMetadata()
                    .buildSessionFactory().close();
        } finally {
            StandardServiceRegistryBuilder.destroy(registry);
        }
    }

    @Entity
    static class StampedEvent {
        @Id
        Long id;
        @IdmintId
        Instant stamp;
    }

    @Entity
    static class IntNumbered {
        @Id
        Long id;
        @IdmintSegment("numbers")
        int number;
    }

    @Entity
    static class UuidNumbered {
        @Id
        Long id;
        @IdmintSegment("numbers")
        java.util.UUID number;
    }

    @Entity
    static class LongSerial {
        @Id
        Long id;
        @IdmintSerial("invoice")
        Long number;
    }

    @Entity
    static class LongCoded {
        @Id
        Long id;
        @IdmintId(code = true)
        Long publicNumber;
    }

    @Entity
    static class StringCoded {
        @Id
        Long id;
        @IdmintId(code = true)
        String publicNumber;
    }
}
