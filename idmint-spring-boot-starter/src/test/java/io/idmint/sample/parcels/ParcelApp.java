package io.idmint.sample.parcels;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A Spring Boot application with Spring Data JDBC (no JPA) and idmint-entity fields, for the
 * tests: the starter fills {@link Parcel}'s and {@link Stamp}'s fields before each insert.
 */
@SpringBootApplication
public class ParcelApp {

    /** Its key for public codes ({@link Parcel#trackingCode}). */
    public static final String CODE_KEY = "000102030405060708090a0b0c0d0e0f";

    /** The tables, as the application's migration would make them. */
    public static final String SCHEMA = """
            create table if not exists parcel (id bigint primary key,
                tracking_code varchar(32) not null unique, label bigint not null unique,
                note varchar(100));
            create table if not exists stamp (id bigint primary key, text varchar(100))""";

    /** The application with its own configuration: a test adds the properties of its setup. */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(ParcelApp.class).properties(
                "idmint.codes.key=" + CODE_KEY,
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off");
    }
}
