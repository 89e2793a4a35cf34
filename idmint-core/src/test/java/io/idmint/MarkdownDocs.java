package io.idmint;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough Markdown for {@link DocsTest}: fenced code blocks, relative links and the anchors
 * GitHub gives headings. Fences are lines starting with three backticks; nothing inside one is a
 * heading or a link.
 */
final class MarkdownDocs {

    /** A fenced block: the info string after the backticks, its body, and where the body starts. */
    record Block(String file, int firstLine, String info, String body) {
        String language() {
            String trimmed = info.strip();
            int space = trimmed.indexOf(' ');
            return space < 0 ? trimmed : trimmed.substring(0, space);
        }

        /** The text after the language, e.g. {@code no-compile: needs a database}. */
        String options() {
            String trimmed = info.strip();
            int space = trimmed.indexOf(' ');
            return space < 0 ? "" : trimmed.substring(space + 1).strip();
        }
    }

    /** A link {@code [text](target)} outside code, with the line it is on. */
    record Link(String file, int line, String target) {}

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");

    private MarkdownDocs() {}

    static List<Block> blocks(String file, String text) {
        List<Block> blocks = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].startsWith("```")) {
                continue;
            }
            String info = lines[i].substring(3);
            int start = i + 1;
            StringBuilder body = new StringBuilder();
            i++;
            while (i < lines.length && !lines[i].startsWith("```")) {
                body.append(lines[i]).append('\n');
                i++;
            }
            if (i == lines.length) {
                throw new IllegalArgumentException(file + ":" + start + ": unclosed code fence");
            }
            blocks.add(new Block(file, start + 1, info, body.toString()));
        }
        return blocks;
    }

    static List<Link> links(String file, String text) {
        List<Link> links = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            // Code spans go first, but a span that is the text of a link keeps the link.
            String line = CODE_SPAN.matcher(lines[i]).replaceAll("code");
            Matcher m = LINK.matcher(line);
            while (m.find()) {
                links.add(new Link(file, i + 1, m.group(1)));
            }
        }
        return links;
    }

    /** The anchors GitHub makes for the headings of a page, duplicates numbered from -1. */
    static Set<String> anchors(String text) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (fenced || !m.matches()) {
                continue;
            }
            String slug = slug(m.group(2));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    /**
     * GitHub's rule: the rendered text, lower-cased, without punctuation (letters, digits,
     * spaces, {@code -} and {@code _} stay), spaces turned into hyphens.
     */
    static String slug(String heading) {
        String text = INLINE_LINK.matcher(heading).replaceAll("$1");
        text = Normalizer.normalize(text, Normalizer.Form.NFC).toLowerCase(Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }
}
