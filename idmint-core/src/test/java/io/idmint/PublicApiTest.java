package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Pins what the core exports, package by package, nested types included: a type becomes public
 * only on purpose.
 */
class PublicApiTest {

    @Test
    void publicTypes_areExactlyTheApiTheSegmentApiAndTheSpi() throws Exception {
        assertThat(publicTypes()).containsExactly(
                "io.idmint.ClockPolicy",
                "io.idmint.GeneratorListener",
                "io.idmint.GeneratorStatus",
                "io.idmint.GeneratorStatus.Worker",
                "io.idmint.IdCodec",
                "io.idmint.IdGenerator",
                "io.idmint.IdParts",
                "io.idmint.IdUnavailableException",
                "io.idmint.IdUnavailableException.Reason",
                "io.idmint.Layout",
                "io.idmint.Layout.Field",
                "io.idmint.LeaseState",
                "io.idmint.SequenceStart",
                "io.idmint.Snowflake",
                "io.idmint.TimeSource",
                "io.idmint.WorkerRegistries",
                "io.idmint.segment.RangeStores",
                "io.idmint.segment.SegmentGenerator",
                "io.idmint.segment.SegmentOrder",
                "io.idmint.segment.SegmentSequence",
                "io.idmint.segment.SegmentStats",
                "io.idmint.segment.Segments",
                "io.idmint.spi.Checks",
                "io.idmint.spi.Claim",
                "io.idmint.spi.ClaimRequest",
                "io.idmint.spi.Durations",
                "io.idmint.spi.Names",
                "io.idmint.spi.Providers",
                "io.idmint.spi.Range",
                "io.idmint.spi.RangeStore",
                "io.idmint.spi.RangeStoreProvider",
                "io.idmint.spi.RegistryException",
                "io.idmint.spi.RegistryException.Kind",
                "io.idmint.spi.TagInfo",
                "io.idmint.spi.TagValue",
                "io.idmint.spi.UnknownTagException",
                "io.idmint.spi.WorkerRecord",
                "io.idmint.spi.WorkerRegistry",
                "io.idmint.spi.WorkerRegistryProvider");
    }

    /** Every public type of the core's classes, by canonical name, sorted. */
    private static List<String> publicTypes() throws Exception {
        Path classes = Path.of(
                IdGenerator.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(classes)) {
            return files.map(p -> classes.relativize(p).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("package-info"))
                    .map(f -> f.substring(0, f.length() - 6).replace('/', '.'))
                    .filter(PublicApiTest::isPublic)
                    .map(binaryName -> binaryName.replace('$', '.'))
                    .sorted().toList();
        }
    }

    /** Public, and so are the types it is nested in. */
    private static boolean isPublic(String binaryName) {
        try {
            for (Class<?> c = Class.forName(binaryName); c != null; c = c.getEnclosingClass()) {
                if (!Modifier.isPublic(c.getModifiers())) {
                    return false;
                }
            }
            return true;
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
