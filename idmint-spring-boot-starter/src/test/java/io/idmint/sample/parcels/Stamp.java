package io.idmint.sample.parcels;

import io.idmint.entity.IdmintId;
import org.springframework.data.annotation.Id;

/** An immutable aggregate: Spring Data JDBC builds a new record with the key idmint gave it. */
public record Stamp(@Id @IdmintId Long id, String text) {
}
