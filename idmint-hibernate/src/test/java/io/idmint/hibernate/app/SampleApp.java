package io.idmint.hibernate.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A Spring Boot application with Spring Data JPA and idmint entity IDs, for the tests. It has no
 * JSON code: the starter registers idmint's Jackson module (idmint-jackson on Spring Boot 3,
 * idmint-jackson3 on Spring Boot 4), so its controller writes IDs as JSON strings.
 */
@SpringBootApplication
public class SampleApp {

    /** Its key for public codes ({@link Shipment}'s tracking codes), as its configuration says. */
    public static final String CODE_KEY = "000102030405060708090a0b0c0d0e0f";

    /** The application with its own configuration: a test adds the properties of its setup. */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(SampleApp.class)
                .properties("idmint.codes.key=" + CODE_KEY);
    }
}
