package io.idmint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SerialClient} against scripted servers: unbuffered calls, failover, refusals. */
class SerialClientTest {

    @Test
    void next_asksTheServerEachTime_nothingBuffered() throws Exception {
        try (ScriptedServer s = new ScriptedServer(1);
                IdClient ids = IdClient.connect(s.target())) {
            SerialClient receipts = ids.serial("receipt");
            assertThat(receipts.name()).isEqualTo("receipt");
            assertThat(receipts.next()).isEqualTo("R-1");
            assertThat(receipts.next(3)).containsExactly("R-2", "R-3", "R-4");
            assertThat(receipts.next()).isEqualTo("R-5");
            assertThat(s.next.get()).as("the server handed out exactly what was asked")
                    .isEqualTo(6);
        }
    }

    @Test
    void next_firstRefuses_failsOverToTheNext() throws Exception {
        try (ScriptedServer a = new ScriptedServer(1);
                ScriptedServer b = new ScriptedServer(5001);
                IdClient ids = IdClient.connect(List.of(a.target(), b.target()))) {
            a.refuse(1);
            assertThat(ids.serial("receipt").next()).startsWith("R-50");
        }
    }

    @Test
    void next_unknownSerialOrBlankName_namesIt() throws Exception {
        try (ScriptedServer s = new ScriptedServer(1);
                IdClient ids = IdClient.connect(s.target())) {
            assertThatThrownBy(() -> ids.serial("invoice").next())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unknown serial 'invoice' at " + s.target()
                            + ": serial 'invoice' is not defined");
            assertThatThrownBy(() -> ids.serial(" "))
                    .hasMessage("serial name must not be blank: ' '");
        }
    }
}
