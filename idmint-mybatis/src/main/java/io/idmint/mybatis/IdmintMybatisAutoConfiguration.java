package io.idmint.mybatis;

import io.idmint.IdGenerator;
import io.idmint.entity.EntityIds;
import io.idmint.spring.IdmintAutoConfiguration;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.session.SqlSessionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * idmint in a Spring Boot application with MyBatis (Spring Boot 3.5 and 4): the {@link
 * IdmintInterceptor} bean, which MyBatis's and MyBatis-Plus's Spring Boot starters add to their
 * {@code SqlSessionFactory}; every INSERT's parameter type checked once the application has
 * started its singletons; and, with MyBatis-Plus, the {@link IdmintIdentifierGenerator} bean
 * that its starter uses for {@code ASSIGN_ID}. Exclude it as any auto-configuration to switch
 * it off.
 */
@AutoConfiguration(after = IdmintAutoConfiguration.class)
@ConditionalOnClass({Interceptor.class, IdmintAutoConfiguration.class})
public class IdmintMybatisAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public IdmintInterceptor idmintMybatisInterceptor(EntityIds entities) {
        return new IdmintInterceptor(entities);
    }

    /** Checks the INSERTs of every {@code SqlSessionFactory} at start-up. */
    @Bean
    SmartInitializingSingleton idmintMybatisCheck(IdmintInterceptor interceptor,
            ObjectProvider<SqlSessionFactory> factories) {
        return () -> factories.orderedStream()
                .forEach(f -> interceptor.check(f.getConfiguration()));
    }

    /** MyBatis-Plus's {@code ASSIGN_ID} from the application's generator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator")
    static class MybatisPlus {

        @Bean
        @ConditionalOnMissingBean(
                type = "com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator")
        public IdmintIdentifierGenerator idmintIdentifierGenerator(IdGenerator ids) {
            return new IdmintIdentifierGenerator(ids);
        }
    }
}
