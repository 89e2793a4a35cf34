package io.idmint.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.idmint.IdGenerator;
import io.idmint.spring.IdmintAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** What the auto-configuration registers, with MyBatis-Plus and without. */
class IdmintMybatisAutoConfigurationTest {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdmintAutoConfiguration.class,
                        IdmintMybatisAutoConfiguration.class))
                .withPropertyValues("idmint.data-dir=" + dir, "idmint.worker=5");
    }

    @Test
    void interceptor_andMybatisPlusIds_fromTheApplicationsGenerator() {
        runner().run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(IdmintInterceptor.class);
            Number id = ctx.getBean(IdentifierGenerator.class).nextId(new Object());
            assertThat(ctx.getBean(IdGenerator.class).layout().decode(id.longValue())
                    .workerId()).isEqualTo(5);
        });
    }

    @Test
    void withoutMybatisPlus_theInterceptorAlone_andAnApplicationsOwnGeneratorWins() {
        runner().withClassLoader(new FilteredClassLoader(IdentifierGenerator.class))
                .run(ctx -> assertThat(ctx).hasNotFailed()
                        .hasSingleBean(IdmintInterceptor.class)
                        .doesNotHaveBean(IdmintIdentifierGenerator.class));
        IdentifierGenerator own = entity -> 42L;
        runner().withBean(IdentifierGenerator.class, () -> own)
                .run(ctx -> assertThat(ctx.getBean(IdentifierGenerator.class)).isSameAs(own));
    }
}
