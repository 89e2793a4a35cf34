package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.net.SocketException;
import org.junit.jupiter.api.Test;

class EtcdClientsTest {

    /**
     * Regression: a TLS member resetting a plain-text connection sometimes reaches the client as
     * a bare "UNAVAILABLE: io exception" over the reset socket, which went unexplained.
     */
    @Test
    void explain_plainUriReset_saysEtcds_evenWhenGrpcSaysOnlyIoException() {
        Throwable reset = Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new SocketException("Connection reset")).asRuntimeException();
        assertThat(EtcdClients.explain(EtcdUri.parse("etcd://h:1/x"), reset))
                .startsWith("etcd http://h:1 closed the plain-text connection; if the members "
                        + "serve TLS, write etcds://");
        assertThat(EtcdClients.explain(EtcdUri.parse("etcd://h:1/x"), Status.UNAVAILABLE
                .withDescription("io exception").asRuntimeException())).isNull();
    }
}
