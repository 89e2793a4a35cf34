package io.idmint.hibernate;

import io.idmint.codes.CodeCodec;
import java.util.function.LongFunction;

/**
 * An ID's public code. idmint-codes is optional: only {@code @IdmintId(code = true)} loads this
 * class.
 */
final class CodeForm {

    private CodeForm() {
    }

    /** @throws IllegalArgumentException when {@code codec} is no {@link CodeCodec} */
    static LongFunction<String> of(Object codec) {
        if (!(codec instanceof CodeCodec codes)) {
            throw new IllegalArgumentException("Hibernate property " + IdmintHibernate.CODES
                    + " holds a " + codec.getClass().getName() + ", not a "
                    + CodeCodec.class.getName());
        }
        return codes::encode;
    }
}
