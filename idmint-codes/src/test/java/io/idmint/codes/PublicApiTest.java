package io.idmint.codes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Pins what idmint-codes exports: a type becomes public only on purpose. */
class PublicApiTest {

    @Test
    void publicTypes_areExactlyTheApi() throws Exception {
        Path classes = Path.of(
                Codes.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> publicTypes;
        try (Stream<Path> files = Files.walk(classes)) {
            publicTypes = files.map(p -> classes.relativize(p).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("package-info"))
                    .map(f -> f.substring(0, f.length() - 6).replace('/', '.'))
                    .filter(PublicApiTest::isPublic)
                    .map(binaryName -> binaryName.replace('$', '.'))
                    .sorted().toList();
        }
        assertThat(publicTypes).containsExactly(
                "io.idmint.codes.CodeCodec",
                "io.idmint.codes.CodeSettings",
                "io.idmint.codes.Codes",
                "io.idmint.codes.Keys",
                "io.idmint.formats.Bounds",
                "io.idmint.formats.Flake128",
                "io.idmint.formats.Flake128.Builder",
                "io.idmint.formats.FormatGenerator",
                "io.idmint.formats.ObjectId",
                "io.idmint.formats.ObjectId.Builder",
                "io.idmint.formats.TypeId",
                "io.idmint.formats.UuidV7",
                "io.idmint.formats.UuidV7.Builder");
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
