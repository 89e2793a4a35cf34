package example;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;

/** Mints one ID on a static registry in the directory given, and prints it. */
public final class Mint {

    private Mint() {
    }

    public static void main(String[] args) {
        try (WorkerRegistry registry = WorkerRegistries.local(Path.of(args[0]));
             IdGenerator ids = Snowflake.newBuilder().registry(registry).build()) {
            System.out.println(ids.nextId());
        }
    }
}
