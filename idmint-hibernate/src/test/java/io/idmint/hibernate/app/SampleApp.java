package io.idmint.hibernate.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application with Spring Data JPA and idmint entity IDs, for the tests. It has no
 * JSON code: the starter registers idmint's Jackson module (idmint-jackson on Spring Boot 3,
 * idmint-jackson3 on Spring Boot 4), so its controller writes IDs as JSON strings.
 */
@SpringBootApplication
public class SampleApp {
}
