package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Pins what the core exports: a type becomes public only on purpose. */
class PublicApiTest {

    @Test
    void publicTypes_areExactlyTheApiAndTheSpi() throws Exception {
        Path classes = Path.of(IdGenerator.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> publicTypes;
        try (Stream<Path> files = Files.walk(classes)) {
            publicTypes = files.map(p -> classes.relativize(p).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("$")
                            && !f.contains("package-info"))
                    .map(f -> f.substring(0, f.length() - 6).replace('/', '.'))
                    .filter(PublicApiTest::isPublic)
                    .sorted().toList();
        }
        assertThat(publicTypes).containsExactly(
                "io.idmint.ClockPolicy",
                "io.idmint.GeneratorListener",
                "io.idmint.GeneratorStatus",
                "io.idmint.IdCodec",
                "io.idmint.IdGenerator",
                "io.idmint.IdParts",
                "io.idmint.IdUnavailableException",
                "io.idmint.Layout",
                "io.idmint.LeaseState",
                "io.idmint.RangeStores",
                "io.idmint.SegmentGenerator",
                "io.idmint.SegmentOrder",
                "io.idmint.SegmentSequence",
                "io.idmint.SegmentStats",
                "io.idmint.Segments",
                "io.idmint.SequenceStart",
                "io.idmint.Snowflake",
                "io.idmint.TimeSource",
                "io.idmint.WorkerRegistries",
                "io.idmint.spi.Claim",
                "io.idmint.spi.ClaimRequest",
                "io.idmint.spi.Durations",
                "io.idmint.spi.Range",
                "io.idmint.spi.RangeStore",
                "io.idmint.spi.RangeStoreProvider",
                "io.idmint.spi.RegistryException",
                "io.idmint.spi.TagInfo",
                "io.idmint.spi.UnknownTagException",
                "io.idmint.spi.WorkerRecord",
                "io.idmint.spi.WorkerRegistry",
                "io.idmint.spi.WorkerRegistryProvider");
    }

    private static boolean isPublic(String name) {
        try {
            return Modifier.isPublic(Class.forName(name).getModifiers());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
