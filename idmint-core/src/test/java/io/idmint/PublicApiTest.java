package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
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
                "io.idmint.FencedUuidV7",
                "io.idmint.GeneratorListener",
                "io.idmint.GeneratorStatus",
                "io.idmint.GeneratorStatus.Worker",
                "io.idmint.IdCodec",
                "io.idmint.IdGenerator",
                "io.idmint.IdParts",
                "io.idmint.IdRange",
                "io.idmint.IdUnavailableException",
                "io.idmint.IdUnavailableException.Reason",
                "io.idmint.Layout",
                "io.idmint.Layout.Field",
                "io.idmint.LeaseState",
                "io.idmint.SequenceStart",
                "io.idmint.Snowflake",
                "io.idmint.TimeSource",
                "io.idmint.TypedId",
                "io.idmint.WorkerRegistries",
                "io.idmint.segment.RangeStores",
                "io.idmint.segment.SegmentGenerator",
                "io.idmint.segment.SegmentOrder",
                "io.idmint.segment.SegmentSequence",
                "io.idmint.segment.SegmentStats",
                "io.idmint.segment.Segments",
                "io.idmint.segment.Serial",
                "io.idmint.segment.SerialDefinition",
                "io.idmint.segment.SerialDefinition.Builder",
                "io.idmint.segment.SerialPeriod",
                "io.idmint.segment.SerialStats",
                "io.idmint.segment.SerialValue",
                "io.idmint.segment.Serials",
                "io.idmint.segment.Serials.Builder",
                "io.idmint.spi.Claim",
                "io.idmint.spi.ClaimRequest",
                "io.idmint.spi.Range",
                "io.idmint.spi.RangeStore",
                "io.idmint.spi.RangeStoreProvider",
                "io.idmint.spi.RegistryException",
                "io.idmint.spi.RegistryException.Kind",
                "io.idmint.spi.TagInfo",
                "io.idmint.spi.UnknownTagException",
                "io.idmint.spi.WorkerRecord",
                "io.idmint.spi.WorkerRegistry",
                "io.idmint.spi.WorkerRegistryProvider",
                "io.idmint.spi.support.Checks",
                "io.idmint.spi.support.Durations",
                "io.idmint.spi.support.HolderText",
                "io.idmint.spi.support.Names",
                "io.idmint.spi.support.NodeValues",
                "io.idmint.spi.support.Passwords",
                "io.idmint.spi.support.Providers",
                "io.idmint.spi.support.TagValue",
                "io.idmint.spi.support.UriOptions",
                "io.idmint.spi.support.UriSecurity");
    }

    /**
     * The module exports exactly the packages of those public types, to everyone, and needs
     * nothing but {@code java.base}: a package of helpers cannot slip out unpinned.
     */
    @Test
    void moduleInfo_exportsExactlyThePinnedPackages() throws Exception {
        ModuleDescriptor core = ModuleFinder.of(classes()).find("io.idmint.core").orElseThrow()
                .descriptor();

        assertThat(core.exports()).noneMatch(ModuleDescriptor.Exports::isQualified);
        assertThat(core.exports().stream().map(ModuleDescriptor.Exports::source).sorted())
                .containsExactlyElementsOf(publicTypes().stream().map(PublicApiTest::packageOf)
                        .distinct().sorted().toList());
        assertThat(core.requires()).extracting(ModuleDescriptor.Requires::name)
                .containsExactly("java.base");
        assertThat(core.uses()).containsExactlyInAnyOrder("io.idmint.spi.WorkerRegistryProvider",
                "io.idmint.spi.RangeStoreProvider");
    }

    /** The package of a canonical name: its parts before the first capitalised one. */
    private static String packageOf(String canonicalName) {
        String[] parts = canonicalName.split("\\.");
        StringBuilder pkg = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length && Character.isLowerCase(parts[i].charAt(0)); i++) {
            pkg.append('.').append(parts[i]);
        }
        return pkg.toString();
    }

    /**
     * The presets are public contract: their names, and a spec that never changes meaning for a
     * deployment that stored it (new epochs get new names).
     */
    @Test
    void presets_areExactlyTheseNamesAndSpecs() {
        assertThat(Layout.presets()).extracting(l -> l.name() + " " + l.spec()).containsExactly(
                "snowflake time=41,datacenter=5,worker=5,sequence=12,tick=1ms,"
                        + "epoch=2026-01-01T00:00:00Z",
                "region time=41,datacenter=3,worker=10,sequence=9,tick=1ms,"
                        + "epoch=2026-01-01T00:00:00Z",
                "instagram time=41,shard=13,sequence=9,tick=1ms,epoch=2026-01-01T00:00:00Z",
                "sonyflake time=39,sequence=8,worker=16,tick=10ms,epoch=2026-01-01T00:00:00Z",
                "uid-generator time=28,worker=22,sequence=13,tick=1s,epoch=2026-01-01T00:00:00Z",
                "js-safe time=41,worker=5,sequence=7,tick=1ms,epoch=2026-01-01T00:00:00Z",
                "leaf time=41,worker=10,sequence=12,tick=1ms,epoch=2010-11-04T01:42:54.657Z",
                "twitter time=41,datacenter=5,worker=5,sequence=12,tick=1ms,"
                        + "epoch=2010-11-04T01:42:54.657Z",
                "discord time=42,datacenter=5,worker=5,sequence=12,tick=1ms,"
                        + "epoch=2015-01-01T00:00:00Z",
                "sonyflake-2014 time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z",
                "uid-generator-2016 time=28,worker=22,sequence=13,tick=1s,"
                        + "epoch=2016-05-19T16:00:00Z");
    }

    /** Every public type of the core's classes, by canonical name, sorted. */
    private static List<String> publicTypes() throws Exception {
        Path classes = classes();
        try (Stream<Path> files = Files.walk(classes)) {
            return files.map(p -> classes.relativize(p).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("package-info")
                            && !f.equals("module-info.class"))
                    .map(f -> f.substring(0, f.length() - 6).replace('/', '.'))
                    .filter(PublicApiTest::isPublic)
                    .map(binaryName -> binaryName.replace('$', '.'))
                    .sorted().toList();
        }
    }

    /** The core's compiled classes (its {@code module-info.class} too). */
    private static Path classes() throws Exception {
        return Path.of(
                IdGenerator.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
