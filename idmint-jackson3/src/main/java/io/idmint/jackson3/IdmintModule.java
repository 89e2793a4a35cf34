package io.idmint.jackson3;

import io.idmint.codes.CodeCodec;
import io.idmint.jackson.IdFormat;
import io.idmint.jackson.IdText;
import io.idmint.jackson.JsonId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import tools.jackson.core.Version;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.deser.BeanDeserializerBuilder;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.AnnotatedMethod;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.ValueSerializerModifier;

/**
 * idmint-jackson's {@code IdmintModule} for Jackson 3: writes IDs as JSON strings and reads them
 * from strings or numbers. A JSON number above 2<sup>53</sup> loses precision in JavaScript
 * ({@code JSON.parse}); a string does not.
 *
 * <p>Properties annotated {@link JsonId} (idmint-jackson's, the same for both Jackson lines) are
 * always IDs. With {@link Builder#allIdProperties()}, so is every {@code long}/{@code Long}
 * property named {@code id} or ending in {@code Id} or {@code _id}, written in decimal.
 *
 * <pre>{@code
 * JsonMapper mapper = JsonMapper.builder().addModule(IdmintModule.newBuilder().build()).build();
 * }</pre>
 */
public final class IdmintModule extends JacksonModule {

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
            context.addSerializerModifier(new ByName());
            context.addDeserializerModifier(new ByNameReader());
        }
    }

    /** Serializers and deserializers for members annotated {@link JsonId}. */
    private final class Introspector extends NopAnnotationIntrospector {

        private static final long serialVersionUID = 1L;

        @Override
        public Object findSerializer(MapperConfig<?> config, Annotated a) {
            IdText text = text(a);
            return text == null ? null : new IdSerializer(text);
        }

        @Override
        public Object findDeserializer(MapperConfig<?> config, Annotated a) {
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
    private static final class ByName extends ValueSerializerModifier {

        private static final long serialVersionUID = 1L;

        @Override
        @SuppressWarnings("unchecked")
        public List<BeanPropertyWriter> changeProperties(SerializationConfig config,
                BeanDescription.Supplier bean, List<BeanPropertyWriter> properties) {
            for (BeanPropertyWriter w : properties) {
                if (!w.hasSerializer()
                        && IdText.isIdByName(w.getName(), w.getType().getRawClass())) {
                    w.assignSerializer((ValueSerializer<Object>) (ValueSerializer<?>)
                            new IdSerializer(IdText.DECIMAL));
                }
            }
            return properties;
        }
    }

    /** Reads unannotated ID-named longs from strings or numbers. */
    private static final class ByNameReader extends ValueDeserializerModifier {

        private static final long serialVersionUID = 1L;

        @Override
        public BeanDeserializerBuilder updateBuilder(DeserializationConfig config,
                BeanDescription.Supplier bean, BeanDeserializerBuilder builder) {
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

        /**
         * The codec for {@code @JsonId(}{@link IdFormat#CODE}{@code )} (from idmint-codes);
         * default none.
         */
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
