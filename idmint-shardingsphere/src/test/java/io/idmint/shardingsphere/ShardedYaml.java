package io.idmint.shardingsphere;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/** ShardingSphere-JDBC data sources for the tests and the benchmark, from YAML as users write. */
final class ShardedYaml {

    private ShardedYaml() {
    }

    /**
     * A data source over {@code urls} (named {@code ds_0}, {@code ds_1}, …) with {@code rules},
     * in standalone mode with its metadata in an in-memory H2 database of its own.
     */
    static DataSource dataSource(List<String> urls, String rules)
            throws SQLException, IOException {
        StringBuilder y = new StringBuilder("databaseName: idmint\nmode:\n  type: Standalone\n"
                + "  repository:\n    type: JDBC\n    props:\n      provider: H2\n"
                + "      jdbc_url: jdbc:h2:mem:config_" + System.nanoTime()
                + ";DB_CLOSE_DELAY=-1\ndataSources:\n");
        for (int i = 0; i < urls.size(); i++) {
            y.append("  ds_").append(i).append(":\n")
                    .append("    dataSourceClassName: com.zaxxer.hikari.HikariDataSource\n")
                    .append("    driverClassName: org.postgresql.Driver\n")
                    .append("    jdbcUrl: ").append(urls.get(i)).append('\n')
                    .append("    maximumPoolSize: 4\n");
        }
        return YamlShardingSphereDataSourceFactory.createDataSource(y.append(rules).toString()
                .getBytes(StandardCharsets.UTF_8));
    }
}
