package io.idmint.hibernate.app;

import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

public interface Readings extends JpaRepository<Reading, UUID> {
}
