package io.idmint.sample.missingtag;

import io.idmint.entity.IdmintSegment;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.repository.CrudRepository;

/**
 * An application whose aggregate draws from a segment tag that does not exist and may not be
 * created: it must not start.
 */
@SpringBootApplication
@EnableJdbcRepositories(considerNestedRepositories = true)
public class MissingTagApp {

    /** An aggregate keyed by a tag nobody created. */
    public static class Ticket {
        @Id
        @IdmintSegment(value = "no-such-tag", autoCreate = false)
        public Long id;
    }

    /** Its repository, which registers it with Spring Data JDBC. */
    public interface Tickets extends CrudRepository<Ticket, Long> {
    }
}
