package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.MarkdownDocs.Block;
import io.idmint.MarkdownDocs.Link;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation is tested like code: every {@code ```java} block of README.md and docs/*.md
 * compiles against the core's public API, and every relative link names a file that exists and
 * a heading that is there. It lives in idmint-core because the examples are of the core's API
 * (the library a service embeds, with no dependencies): its test class path is exactly what a
 * user of {@code io.idmint:idmint-core} has, so an example that needs more says so.
 *
 * <p>A block of statements is compiled as the body of a method that may throw, with every
 * package of the core and {@code java.nio.file}, {@code java.time}, {@code java.util} imported
 * (its own leading {@code import} lines are kept); a block that declares a type is compiled as a
 * compilation unit. A block may opt out only with a reason: {@code ```java no-compile: why}.
 */
class DocsTest {

    private static final Path ROOT = repositoryRoot();
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "(?m)^(?:(?:public|final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+"
                    + "(\\w+)");
    private static final String NO_COMPILE = "no-compile";

    @TempDir
    Path classes;

    @Test
    void javaBlocks_compileAgainstTheCoreApi() {
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages()) {
            MarkdownDocs.blocks(name(page), read(page)).stream()
                    .filter(b -> b.language().equals("java"))
                    .forEach(blocks::add);
        }
        assertThat(blocks).as("java blocks in the README")
                .anyMatch(b -> b.file().equals("README.md"));

        assertThat(compile(blocks, classes)).as("java blocks that do not compile").isEmpty();
    }

    @Test
    void links_resolveToFilesAndHeadings() {
        List<Path> pages = new ArrayList<>(pages());
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile)
                    .forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Link> links = new ArrayList<>();
        for (Path page : pages) {
            links.addAll(MarkdownDocs.links(name(page), read(page)));
        }
        assertThat(links).as("links in the docs").hasSizeGreaterThan(20);

        assertThat(brokenLinks(links, Map.of())).as("links that lead nowhere").isEmpty();
    }

    /** Regression: the README's modules table once missed idmint-redis. */
    @Test
    void readmeModulesTable_listsEveryReactorModule() {
        Matcher module = Pattern.compile("<module>([^<]+)</module>")
                .matcher(read(ROOT.resolve("pom.xml")));
        List<String> modules = new ArrayList<>();
        while (module.find()) {
            modules.add(module.group(1));
        }
        String readme = read(ROOT.resolve("README.md"));

        assertThat(modules).as("modules of the root pom").contains("idmint-core", "idmint-redis");
        assertThat(modules).as("modules missing from the README's table")
                .filteredOn(m -> !readme.contains("| `" + m + "` |")).isEmpty();
    }

    /** The README is the front door: a page, with depth in docs/ (issue 36 found it at 218). */
    @Test
    void readme_isAtMost200Lines() {
        assertThat(read(ROOT.resolve("README.md")).lines().count())
                .as("README.md lines: move depth to docs/").isLessThanOrEqualTo(200);
    }

    /** docs/testing.md says where each behaviour is tested: every test class is findable there. */
    @Test
    void testingTable_listsEveryTestClass() throws IOException {
        String testing = read(ROOT.resolve("docs/testing.md"));
        int from = testing.indexOf("## Where each behaviour is tested");
        assertThat(from).as("the section in docs/testing.md").isNotNegative();
        int to = testing.indexOf("\n## ", from + 1);
        String table = testing.substring(from, to < 0 ? testing.length() : to);
        List<String> classes = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path tests : modules.map(m -> m.resolve("src/test/java"))
                    .filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(tests)) {
                    files.map(f -> f.getFileName().toString())
                            .filter(n -> n.endsWith("Test.java") || n.endsWith("IT.java"))
                            .map(n -> n.substring(0, n.length() - ".java".length()))
                            .forEach(classes::add);
                }
            }
        }
        assertThat(classes).as("test classes in the repository").contains("DocsTest");
        assertThat(classes).as("test classes missing from docs/testing.md's table")
                .filteredOn(c -> !table.contains("`" + c + "`")).isEmpty();
    }

    @Test
    void compile_blockThatDoesNotCompile_isReportedWithItsFileAndLine() {
        String page = "# Example\n\n```java\nlong id = 1;\nlong id2 = nope();\n```\n";
        List<Block> blocks = MarkdownDocs.blocks("docs/example.md", page);

        assertThat(compile(blocks, classes)).singleElement().asString()
                .startsWith("docs/example.md:5: ").contains("nope");
    }

    @Test
    void compile_blocksOfStatementsAndOfTypes_useTheCoreApi() {
        String page = "```java\nimport java.util.concurrent.TimeUnit;\n"
                + "Layout layout = Layout.parse(\"snowflake\");\nTimeUnit unit = null;\n```\n"
                + "```java\nimport io.idmint.IdGenerator;\n\npublic final class Example {\n"
                + "    IdGenerator ids;\n}\n```\n"
                + "```java no-compile: shows a fragment\nids.\n```\n";
        List<Block> blocks = MarkdownDocs.blocks("docs/example.md", page);

        assertThat(compile(blocks, classes)).isEmpty();
    }

    @Test
    void compile_noCompileWithoutAReason_isRefused() {
        String page = "```java no-compile\nids.\n```\n```java title\nlong id = 1;\n```\n";
        List<Block> blocks = MarkdownDocs.blocks("README.md", page);

        assertThat(compile(blocks, classes)).containsExactly(
                "README.md:2: a ```java no-compile block must say why: ```java no-compile: <why>",
                "README.md:5: unknown option 'title' on a ```java block "
                        + "(only 'no-compile: <why>')");
    }

    @Test
    void links_missingFileOrHeading_isReported() {
        String page = "# Title\n\n## Some `code`, here\n\n[a](#title) [b](#some-code-here) "
                + "[c](#nowhere) [d](absent.md) [e](../README.md#the-bit-layout) "
                + "[f](https://example.org/x) `[g](#in-code)`\n```\n[h](#in-a-fence)\n```\n";
        List<Link> links = MarkdownDocs.links("docs/example.md", page);

        assertThat(MarkdownDocs.anchors(page)).containsExactly("title", "some-code-here");
        assertThat(links).extracting(Link::target).containsExactly("#title", "#some-code-here",
                "#nowhere", "absent.md", "../README.md#the-bit-layout", "https://example.org/x");
        assertThat(brokenLinks(links, Map.of("docs/example.md", page))).containsExactly(
                "docs/example.md:5: #nowhere: no heading 'nowhere' in docs/example.md",
                "docs/example.md:5: absent.md: no such file");
    }

    /** Problems, each starting with the file and line of the block's first line of code. */
    static List<String> compile(List<Block> blocks, Path out) {
        List<String> problems = new ArrayList<>();
        List<Snippet> sources = new ArrayList<>();
        for (Block block : blocks) {
            String where = block.file() + ":" + block.firstLine() + ": ";
            String options = block.options();
            if (options.isEmpty()) {
                sources.add(Snippet.of(block, sources.size()));
            } else if (options.startsWith(NO_COMPILE)) {
                String reason = options.substring(NO_COMPILE.length()).replaceFirst("^:", "");
                if (reason.isBlank()) {
                    problems.add(where + "a ```java no-compile block must say why: "
                            + "```java no-compile: <why>");
                }
            } else {
                problems.add(where + "unknown option '" + options + "' on a ```java block "
                        + "(only 'no-compile: <why>')");
            }
        }
        if (sources.isEmpty()) {
            return problems;
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("-d", out.toString(), "-classpath", classPath(),
                "-proc:none", "-implicit:none", "-encoding", "UTF-8");
        javac.getTask(null, null, diagnostics, options, null, sources).call();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            String message = d.getMessage(Locale.ROOT).lines().map(String::strip)
                    .collect(Collectors.joining("; "));
            problems.add(d.getSource() instanceof Snippet s
                    ? s.where(d.getLineNumber()) + ": " + message
                    : "javac: " + message);
        }
        return problems;
    }

    /**
     * Problems with links: a file that does not exist, or an anchor no heading makes. Pages named
     * in {@code texts} are read from there instead of the disk.
     */
    static List<String> brokenLinks(List<Link> links, Map<String, String> texts) {
        List<String> problems = new ArrayList<>();
        for (Link link : links) {
            String target = link.target();
            if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                continue; // https:, mailto:: not checked here
            }
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            Path from = ROOT.resolve(link.file()).getParent();
            Path resolved = file.isEmpty() ? ROOT.resolve(link.file()) : from.resolve(file);
            String where = link.file() + ":" + link.line() + ": " + target + ": ";
            if (!Files.exists(resolved) && !texts.containsKey(name(resolved))) {
                problems.add(where + "no such file");
            } else if (hash >= 0 && Files.isDirectory(resolved)) {
                problems.add(where + "an anchor on a directory");
            } else if (hash >= 0) {
                String anchor = target.substring(hash + 1);
                String text = texts.get(name(resolved));
                if (!MarkdownDocs.anchors(text != null ? text : read(resolved)).contains(anchor)) {
                    problems.add(where + "no heading '" + anchor + "' in " + name(resolved));
                }
            }
        }
        return problems;
    }

    /** A block as a Java source, with a map from its lines back to the page's. */
    private static final class Snippet extends SimpleJavaFileObject {
        private final Block block;
        private final String code;
        private final int[] pageLines;

        private Snippet(String className, Block block, String code, int[] pageLines) {
            super(URI.create("string:///" + className + Kind.SOURCE.extension), Kind.SOURCE);
            this.block = block;
            this.code = code;
            this.pageLines = pageLines;
        }

        static Snippet of(Block block, int index) {
            List<String> lines = block.body().lines().toList();
            Matcher type = TYPE_DECLARATION.matcher(block.body());
            if (type.find()) {
                int[] map = new int[lines.size() + 1];
                for (int i = 0; i < map.length; i++) {
                    map[i] = block.firstLine() + Math.max(0, i - 1);
                }
                return new Snippet(type.group(1), block, block.body(), map);
            }
            String className = "DocSnippet" + index;
            int imports = 0;
            while (imports < lines.size() && lines.get(imports).startsWith("import ")) {
                imports++;
            }
            StringBuilder code = new StringBuilder(defaultImports()).append('\n');
            List<Integer> map = new ArrayList<>(List.of(0, block.firstLine()));
            for (int i = 0; i < imports; i++) {
                code.append(lines.get(i)).append('\n');
                map.add(block.firstLine() + i);
            }
            code.append("final class ").append(className)
                    .append(" { void snippet() throws Exception {\n");
            map.add(block.firstLine() + imports);
            for (int i = imports; i < lines.size(); i++) {
                code.append(lines.get(i)).append('\n');
                map.add(block.firstLine() + i);
            }
            code.append("}}\n");
            map.add(block.firstLine() + lines.size() - 1);
            return new Snippet(className, block, code.toString(),
                    map.stream().mapToInt(Integer::intValue).toArray());
        }

        String where(long javacLine) {
            int line = (int) Math.min(Math.max(javacLine, 1), pageLines.length - 1);
            return block.file() + ":" + pageLines[line];
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /** One line: every package of the core (as it is today), and the JDK's usual ones. */
    private static String defaultImports() {
        Set<String> packages = new TreeSet<>(Set.of("java.nio.file", "java.time", "java.util"));
        Path coreClasses;
        try {
            coreClasses = Path.of(IdGenerator.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> files = Files.walk(coreClasses)) {
            files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> coreClasses.relativize(f.getParent()).toString()
                            .replace(File.separatorChar, '.'))
                    .filter(p -> p.startsWith("io.idmint"))
                    .forEach(packages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return packages.stream().map(p -> "import " + p + ".*;").collect(Collectors.joining(" "));
    }

    /** Surefire runs tests with a manifest-only jar; the real class path is in this property. */
    private static String classPath() {
        return System.getProperty("surefire.test.class.path",
                System.getProperty("java.class.path"));
    }

    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    private static String name(Path page) {
        return ROOT.relativize(page.toAbsolutePath().normalize()).toString()
                .replace(File.separatorChar, '/');
    }

    private static String read(Path page) {
        try {
            return Files.readString(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reactor root: the nearest directory up from the module's that holds {@code mvnw}. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw"))
                    && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (with mvnw and docs/) above "
                + Path.of("").toAbsolutePath());
    }
}
