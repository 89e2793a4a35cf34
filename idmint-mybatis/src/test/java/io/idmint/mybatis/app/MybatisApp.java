package io.idmint.mybatis.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A Spring Boot application with MyBatis (its own Spring Boot starter) and idmint-entity fields,
 * for the tests: idmint-mybatis's interceptor fills {@link Voucher}'s fields before each insert.
 */
@SpringBootApplication
public class MybatisApp {

    /** Its key for public codes ({@link Voucher#code}). */
    public static final String CODE_KEY = "000102030405060708090a0b0c0d0e0f";

    /** The table, as the application's migration would make it. */
    public static final String SCHEMA = """
            create table if not exists voucher (id bigint primary key,
                code varchar(32) unique, number bigint not null unique, note varchar(100))""";

    /** The application with its own configuration: a test adds the properties of its setup. */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(MybatisApp.class).properties(
                "idmint.codes.key=" + CODE_KEY,
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off");
    }
}
