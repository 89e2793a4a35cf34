package io.idmint.sample.parcels;

import org.springframework.data.repository.ListCrudRepository;

/** The stamps' repository. */
public interface Stamps extends ListCrudRepository<Stamp, Long> {
}
