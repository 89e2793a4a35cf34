package io.idmint.hibernate.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application with Spring Data JPA and idmint entity IDs, for the tests. */
@SpringBootApplication
public class SampleApp {
}
