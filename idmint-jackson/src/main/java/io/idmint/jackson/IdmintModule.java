package io.idmint.jackson;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMethod;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import io.idmint.codes.CodeCodec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/**
 * Writes IDs as JSON strings and reads them from strings or numbers. A JSON number above
 * 2<sup>53</sup> loses precision in JavaScript ({@code JSON.parse}); a string does not.
 *
 * <p>Properties annotated {@link JsonId} are always IDs. With
 * {@link Builder#allIdProperties()}, so is every {@code long}/{@code Long} property named
 * {@code id} or ending in {@code Id} or {@code _id}, written in decimal.
 *
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper().registerModule(IdmintModule.newBuilder().build());
 * }</pre>
 */
public final class IdmintModule extends Module {

    private final boolean allIds;
    private final LongFunction<String> encode;
    private final ToLongFunction<String> decode;

    private IdmintModule(Builder b) {
        this.allIds = b.allIds;
        this.encode = b.encode;
        this.decode = b.decode;
    }

    public static Builder newBuilder() {
        return new Builder();
    }

    @Override
    public String getModuleName() {
        return "idmint";
    }

    @Override
    public Version version() {
        return Version.unknownVersion();
    }

    @Override
    public void setupModule(SetupContext context) {
        context.insertAnnotationIntrospector(new Introspector());
        if (allIds) {
            context.addBeanSerializerModifier(new ByName());
            context.addBeanDeserializerModifier(new ByNameReader());
        }
    }

    /** Serializers and deserializers for members annotated {@link JsonId}. */
    private final class Introspector extends NopAnnotationIntrospector {

        private static final long serialVersionUID = 1L;

        @Override
        public Object findSerializer(Annotated a) {
            IdText text = text(a);
            return text == null ? null : new IdSerializer(text);
        }

        @Override
        public Object findDeserializer(Annotated a) {
            IdText text = text(a);
            return text == null ? null : new IdDeserializer(text, valueType(a) == long.class);
        }

        /** The form of a member annotated {@link JsonId}; null for any other. */
        private IdText text(Annotated a) {
            JsonId id = a.getAnnotation(JsonId.class);
            return id == null ? null
                    : IdText.of(id, a.getName(), valueType(a), encode, decode);
        }

        private Class<?> valueType(Annotated a) {
            if (a instanceof AnnotatedMethod m && m.getParameterCount() == 1) {
                return m.getRawParameterType(0);
            }
            return a.getRawType();
        }
    }

    /** Writes unannotated ID-named longs as decimal strings. */
    private static final class ByName extends BeanSerializerModifier {

        private static final long serialVersionUID = 1L;

        @Override
        @SuppressWarnings("unchecked")
        public List<BeanPropertyWriter> changeProperties(SerializationConfig config,
                BeanDescription bean, List<BeanPropertyWriter> properties) {
            for (BeanPropertyWriter w : properties) {
                if (!w.hasSerializer()
                        && IdText.isIdByName(w.getName(), w.getType().getRawClass())) {
                    w.assignSerializer((JsonSerializer<Object>) (JsonSerializer<?>)
                            new IdSerializer(IdText.DECIMAL));
                }
            }
            return properties;
        }
    }

    /** Reads unannotated ID-named longs from strings or numbers. */
    private static final class ByNameReader extends BeanDeserializerModifier {

        private static final long serialVersionUID = 1L;

        @Override
        public BeanDeserializerBuilder updateBuilder(DeserializationConfig config,
                BeanDescription bean, BeanDeserializerBuilder builder) {
            List<SettableBeanProperty> replaced = new ArrayList<>();
            for (Iterator<SettableBeanProperty> it = builder.getProperties(); it.hasNext(); ) {
                SettableBeanProperty p = it.next();
                Class<?> type = p.getType().getRawClass();
                if (!p.hasValueDeserializer() && IdText.isIdByName(p.getName(), type)) {
                    replaced.add(p.withValueDeserializer(new IdDeserializer(IdText.DECIMAL,
                            type == long.class)));
                }
            }
            replaced.forEach(p -> builder.addOrReplaceProperty(p, true));
            return builder;
        }
    }

    /** Builds the module; each setter may be called once. */
    public static final class Builder {

        private boolean allIds;
        private LongFunction<String> encode;
        private ToLongFunction<String> decode;

        private Builder() {
        }

        /**
         * Treats every {@code long}/{@code Long} property named {@code id} or ending in
         * {@code Id} or {@code _id} as an ID, written as a decimal string; default off (only
         * {@link JsonId} properties).
         */
        public Builder allIdProperties() {
            if (allIds) {
                throw new IllegalStateException("allIdProperties was set already");
            }
            allIds = true;
            return this;
        }

        /** The codec for {@code @JsonId(IdFormat.CODE)} (from idmint-codes); default none. */
        public Builder codes(CodeCodec codec) {
            Objects.requireNonNull(codec, "codec");
            if (encode != null) {
                throw new IllegalStateException("codes was set already");
            }
            encode = codec::encode;
            decode = codec::decode;
            return this;
        }

        public IdmintModule build() {
            return new IdmintModule(this);
        }
    }
}
