package io.idmint.hibernate.app;

import io.idmint.jackson.IdmintModule;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A Spring Boot application with Spring Data JPA and idmint entity IDs, for the tests. */
@SpringBootApplication
public class SampleApp {

    /** Spring Boot registers every Jackson module bean in its ObjectMapper. */
    @Bean
    IdmintModule idmintJackson() {
        return IdmintModule.newBuilder().build();
    }
}
