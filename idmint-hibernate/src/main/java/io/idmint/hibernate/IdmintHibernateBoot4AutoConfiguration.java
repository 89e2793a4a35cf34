package io.idmint.hibernate;

import io.idmint.IdGenerator;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Serials;
import io.idmint.spi.RangeStore;
import io.idmint.spring.IdmintAutoConfiguration;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/** {@link IdmintHibernateAutoConfiguration} for Spring Boot 4, where the customizer moved. */
@AutoConfiguration(after = IdmintAutoConfiguration.class)
@ConditionalOnClass({HibernatePropertiesCustomizer.class, IdmintAutoConfiguration.class})
public class IdmintHibernateBoot4AutoConfiguration {

    @Bean
    HibernatePropertiesCustomizer idmintHibernateGenerators(ObjectProvider<IdGenerator> ids,
            ObjectProvider<SegmentGenerator> segments, ObjectProvider<RangeStore> store,
            ObjectProvider<Serials> serials, BeanFactory beans) {
        return properties -> IdmintHibernateAutoConfiguration.put(properties, ids, segments,
                store, serials, beans);
    }
}
