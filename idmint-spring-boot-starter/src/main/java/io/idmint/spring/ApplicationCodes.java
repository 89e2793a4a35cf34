package io.idmint.spring;

import io.idmint.codes.CodeCodec;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The application's codes codec, for the Jackson modules' {@code @JsonId(CODE)} and
 * idmint-hibernate's {@code @IdmintId(code = true)}. idmint-codes is optional: this class touches
 * {@link CodeCodec} only when it is on the class path, so the configurations that call it load
 * without it.
 */
public final class ApplicationCodes {

    /** Whether idmint-codes is on the class path. */
    static final boolean PRESENT = ClassUtils.isPresent("io.idmint.codes.CodeCodec",
            ApplicationCodes.class.getClassLoader());

    private ApplicationCodes() {
    }

    /** The one {@link CodeCodec} bean; null without idmint-codes or without such a bean. */
    public static CodeCodec of(BeanFactory beans) {
        return PRESENT ? beans.getBeanProvider(CodeCodec.class).getIfUnique() : null;
    }
}
