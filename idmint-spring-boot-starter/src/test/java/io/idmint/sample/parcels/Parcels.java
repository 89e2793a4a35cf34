package io.idmint.sample.parcels;

import org.springframework.data.repository.ListCrudRepository;

/** The parcels' repository. */
public interface Parcels extends ListCrudRepository<Parcel, Long> {
}
