package io.idmint.sample.badtype;

import io.idmint.entity.IdmintId;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.repository.CrudRepository;

/** An application whose aggregate's {@code @IdmintId} is an {@code Integer}: it must not start. */
@SpringBootApplication
@EnableJdbcRepositories(considerNestedRepositories = true)
public class BadTypeApp {

    /** An aggregate whose key cannot hold an ID. */
    public static class Crate {
        @Id
        @IdmintId
        public Integer id;
    }

    /** Its repository, which registers it with Spring Data JDBC. */
    public interface Crates extends CrudRepository<Crate, Integer> {
    }
}
