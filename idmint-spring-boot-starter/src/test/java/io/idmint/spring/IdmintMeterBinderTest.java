package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.segment.SegmentGenerator;
import io.idmint.testkit.TestTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class IdmintMeterBinderTest {

    @TempDir
    Path dir;

    /** What the meter of tag "order" says; -1 while it has none. */
    private static double served(SimpleMeterRegistry registry) {
        var c = registry.find("idmint.segment.ids.served").tag("tag", "order").functionCounter();
        return c == null ? -1 : c.count();
    }

    @Test
    void bindTo_generatorMeters_andSegmentTagsAsTheyComeIntoUse() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdmintAutoConfiguration.class))
                .withPropertyValues("idmint.data-dir=" + dir,
                        "idmint.segment.store=jdbc:h2:mem:meters;DB_CLOSE_DELAY=-1",
                        "idmint.segment.auto-create=true", "idmint.segment.fetch-timeout=30s")
                .run(ctx -> {
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    IdmintMeterBinder binder = new IdmintMeterBinder(
                            ctx.getBeanProvider(IdGenerator.class),
                            ctx.getBeanProvider(SegmentGenerator.class), Duration.ofMillis(20));
                    try {
                        binder.bindTo(registry);
                        assertThat(registry.get("idmint.lease.state").tag("state", "ACTIVE")
                                .gauge().value()).isEqualTo(1);
                        SegmentGenerator segments = ctx.getBean(SegmentGenerator.class);
                        for (int i = 0; i < 7; i++) {
                            segments.next("order");
                        }
                        // The meter appears, then shows the count, at the refreshes to come.
                        long deadline = TestTime.deadline(Duration.ofSeconds(30));
                        while (served(registry) != 7) {
                            assertThat(System.nanoTime()).as("tag 'order' served %s, not 7",
                                    served(registry)).isLessThan(deadline);
                            Thread.sleep(10);
                        }
                    } finally {
                        binder.destroy();
                    }
                });
    }
}
