package io.idmint.server.ops;

import io.idmint.server.Main;

/** A class of a low layer that calls the wiring: {@code LayersTest} must refuse it. */
public final class LayerBreach {

    private LayerBreach() {
    }

    static void breach() {
        Main.main(new String[0]);
    }
}
