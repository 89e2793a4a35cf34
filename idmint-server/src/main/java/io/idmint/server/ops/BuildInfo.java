package io.idmint.server.ops;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build is: the version and commit filtered into {@code version.properties} at build
 * time (the file stays at {@code io/idmint/server/}, where the image build reads it). Read by the
 * CLI's {@code --version}, the status page and the {@code idmint_build_info} metric.
 */
public final class BuildInfo {

    private static final String FILE = "/io/idmint/server/version.properties";

    private BuildInfo() {
    }

    /** The version and commit from the build; a missing one is absent from the result. */
    public static Properties properties() throws IOException {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(FILE)) {
            if (in != null) {
                p.load(in);
            }
        }
        return p;
    }

    /** The first line of {@code --version}: {@code idmint <version>}. */
    public static String versionLine() throws IOException {
        return "idmint " + properties().getProperty("version", "(unknown version)");
    }
}
