package io.idmint.spring;

import io.idmint.codes.CodeCodec;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The application's codes codec for the Jackson modules' {@code @JsonId(CODE)}. idmint-codes is
 * optional: this class touches {@link CodeCodec} only when it is on the class path, so the
 * configurations that call it load without it.
 */
final class JacksonCodes {

    private static final boolean PRESENT = ClassUtils.isPresent("io.idmint.codes.CodeCodec",
            JacksonCodes.class.getClassLoader());

    private JacksonCodes() {
    }

    /** The one {@link CodeCodec} bean; null without idmint-codes or without such a bean. */
    static CodeCodec of(BeanFactory beans) {
        return PRESENT ? beans.getBeanProvider(CodeCodec.class).getIfUnique() : null;
    }
}
