package io.idmint.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import io.idmint.server.api.Count;
import io.idmint.server.api.IdService;
import io.idmint.server.api.RequestPipeline;
import io.idmint.server.api.SegmentService;
import io.idmint.server.api.Tag;
import io.idmint.server.ops.LayerBreach;
import org.junit.jupiter.api.Test;

/**
 * The server's layers, as each package's {@code package-info.java} states them: an arrow against
 * them fails the build. Only the server's own packages count here; what a layer takes from the
 * core, Vert.x or gRPC is its {@code pom.xml}'s business.
 */
class LayersTest {

    private static final String ROOT = "io.idmint.server";
    private static final String[] PACKAGES = {ROOT, ROOT + ".cli..", ROOT + ".http..",
        ROOT + ".grpc..", ROOT + ".api..", ROOT + ".mint..", ROOT + ".tls..", ROOT + ".net..",
        ROOT + ".config..", ROOT + ".ops..", ROOT + ".json.."};

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    /** The rules: each layer names every layer it may use, and nothing else of the server. */
    static LayeredArchitecture layers() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .withOptionalLayers(true)
                .layer("Wiring").definedBy(ROOT)
                .layer("Cli").definedBy(ROOT + ".cli..")
                .layer("Http").definedBy(ROOT + ".http..")
                .layer("Grpc").definedBy(ROOT + ".grpc..")
                .layer("Api").definedBy(ROOT + ".api..")
                .layer("Mint").definedBy(ROOT + ".mint..")
                .layer("Tls").definedBy(ROOT + ".tls..")
                .layer("Net").definedBy(ROOT + ".net..")
                .layer("Config").definedBy(ROOT + ".config..")
                .layer("Ops").definedBy(ROOT + ".ops..")
                .layer("Json").definedBy(ROOT + ".json..")
                .whereLayer("Wiring").mayNotBeAccessedByAnyLayer()
                .whereLayer("Cli").mayOnlyAccessLayers("Api", "Mint", "Tls", "Config", "Ops",
                        "Json")
                .whereLayer("Http").mayOnlyAccessLayers("Api", "Mint", "Net", "Tls", "Config",
                        "Ops", "Json")
                .whereLayer("Grpc").mayOnlyAccessLayers("Api", "Mint", "Net", "Tls", "Config",
                        "Ops", "Json")
                .whereLayer("Api").mayOnlyAccessLayers("Mint", "Config", "Ops", "Json")
                .whereLayer("Mint").mayOnlyAccessLayers("Config", "Ops")
                .whereLayer("Tls").mayOnlyAccessLayers("Config", "Ops")
                .whereLayer("Net").mayNotAccessAnyLayer()
                .whereLayer("Config").mayOnlyAccessLayers("Ops")
                .whereLayer("Ops").mayNotAccessAnyLayer()
                .whereLayer("Json").mayNotAccessAnyLayer();
    }

    @Test
    void layers_holdInTheServer() {
        layers().check(SERVER);
    }

    @Test
    void everyClass_isInALayer() {
        ArchRule inLayer = classes().should().resideInAnyPackage(PACKAGES)
                .because("a new package must say in LayersTest what it may use");
        inLayer.check(SERVER);
    }

    /**
     * The tests' harness ({@code harness}, package-info) serves the tests and uses none: no test
     * class, nothing of the chaos and scale runs.
     */
    @Test
    void testHarness_usesNoTest() {
        String test = ".*(IT|Test)(\\$.*)?";
        noClasses().that().resideInAPackage(ROOT + ".harness..").and()
                .haveNameNotMatching(test)
                .should().dependOnClassesThat().haveNameMatching(test)
                .orShould().dependOnClassesThat().resideInAPackage(ROOT + ".chaos..")
                .because("tests use the harness, not the other way round")
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                        .importPackages(ROOT + ".harness"));
    }

    @Test
    void countsAndTags_areMadeInTheApiOnly() {
        // Each operation's parse step is api.Calls's: a transport hands it the count and tag as
        // it read them, so their limits and checks are written once.
        ArchRule parsedInApi = noClasses().that()
                .resideInAnyPackage(ROOT + ".http..", ROOT + ".grpc..")
                .should().callMethod(Count.class, "of", long.class, long.class)
                .orShould().callMethod(RequestPipeline.class, "count", String.class, int.class)
                .orShould().callMethod(RequestPipeline.class, "count", boolean.class, long.class,
                        long.class)
                .orShould().callMethod(Tag.class, "of", String.class)
                .orShould().callMethod(SegmentService.class, "checkTag", String.class)
                .orShould().callMethod(SegmentService.class, "checkCreate", String.class,
                        Long.class, Long.class)
                .because("a count or tag is checked once, by its operation in api.Calls");
        parsedInApi.check(SERVER);
    }

    @Test
    void chargesAndMints_areTheApis() {
        // Each operation charges and mints in api.Calls; a transport renders what it answers.
        ArchRule mintedInApi = noClasses().that()
                .resideInAnyPackage(ROOT + ".http..", ROOT + ".grpc..")
                .should().callMethod(RequestPipeline.class, "charge", RequestPipeline.Caller.class,
                        long.class)
                .orShould().callMethod(RequestPipeline.class, "chargeOrWait",
                        RequestPipeline.Caller.class, long.class)
                .orShould().callMethod(IdService.class, "fill", long[].class, int.class)
                .orShould().callMethod(IdService.class, "fill", long[].class, int.class,
                        long.class)
                .orShould().callMethod(IdService.class, "fillNow", long[].class, int.class,
                        int.class)
                .orShould().callMethod(SegmentService.class, "next", Tag.class)
                .orShould().callMethod(SegmentService.class, "next", Tag.class, Count.class)
                .because("each operation charges and mints once, in api.Calls");
        mintedInApi.check(SERVER);
    }

    @Test
    void layers_refuseAnArrowUp() {
        EvaluationResult result = layers().evaluate(new ClassFileImporter()
                .importClasses(LayerBreach.class, Main.class));

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anyMatch(d -> d.contains(LayerBreach.class.getName()));
    }
}
