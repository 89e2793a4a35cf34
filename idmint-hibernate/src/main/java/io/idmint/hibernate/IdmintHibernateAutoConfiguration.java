package io.idmint.hibernate;

import io.idmint.IdGenerator;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Serials;
import io.idmint.spi.RangeStore;
import io.idmint.spring.ApplicationCodes;
import io.idmint.spring.IdmintAutoConfiguration;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.orm.jpa.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Hands the starter's generators to Hibernate (Spring Boot 3), so {@link IdmintId} and
 * {@link IdmintSegment} use the application's beans. {@link IdmintHibernateBoot4AutoConfiguration}
 * does the same on Spring Boot 4.
 */
@AutoConfiguration(after = IdmintAutoConfiguration.class)
@ConditionalOnClass({HibernatePropertiesCustomizer.class, IdmintAutoConfiguration.class})
public class IdmintHibernateAutoConfiguration {

    @Bean
    HibernatePropertiesCustomizer idmintHibernateGenerators(ObjectProvider<IdGenerator> ids,
            ObjectProvider<SegmentGenerator> segments, ObjectProvider<RangeStore> store,
            ObjectProvider<Serials> serials, BeanFactory beans) {
        return properties -> put(properties, ids, segments, store, serials, beans);
    }

    /** Puts the application's generators into the Hibernate properties. */
    static void put(Map<String, Object> properties, ObjectProvider<IdGenerator> ids,
            ObjectProvider<SegmentGenerator> segments, ObjectProvider<RangeStore> store,
            ObjectProvider<Serials> serials, BeanFactory beans) {
        ids.ifUnique(g -> properties.put(IdmintHibernate.ID_GENERATOR, g));
        segments.ifUnique(g -> properties.put(IdmintHibernate.SEGMENT_GENERATOR, g));
        store.ifUnique(s -> properties.put(IdmintHibernate.RANGE_STORE, s));
        serials.ifUnique(s -> properties.put(IdmintHibernate.SERIALS, s));
        Object codes = ApplicationCodes.of(beans);
        if (codes != null) {
            properties.put(IdmintHibernate.CODES, codes);
        }
    }
}
