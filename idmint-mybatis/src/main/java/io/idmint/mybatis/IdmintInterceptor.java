package io.idmint.mybatis;

import io.idmint.entity.EntityIds;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.mapping.SqlCommandType;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.apache.ibatis.session.Configuration;

/**
 * Fills the unset {@code @IdmintId} and {@code @IdmintSegment} fields (idmint-entity) of an
 * INSERT's parameters before MyBatis binds them, so {@code #{id}} reads the new ID: the parameter
 * itself, or every entity in the collections and arrays of a mapper's named parameters (a
 * {@code <foreach>} multi-row insert is filled with one generator call per field, not per row).
 * Other statements pass untouched. Register it as a plugin (the Spring Boot starter does):
 *
 * <pre>{@code
 * configuration.addInterceptor(new IdmintInterceptor(entityIds));
 * }</pre>
 */
@Intercepts(@Signature(type = Executor.class, method = "update",
        args = {MappedStatement.class, Object.class}))
public final class IdmintInterceptor implements Interceptor {

    private final EntityIds entities;

    /** Fills with {@code entities}. */
    public IdmintInterceptor(EntityIds entities) {
        this.entities = entities;
    }

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        Object[] args = invocation.getArgs();
        MappedStatement statement = (MappedStatement) args[0];
        if (statement.getSqlCommandType() == SqlCommandType.INSERT && args[1] != null) {
            fill(args[1]);
        }
        return invocation.proceed();
    }

    /** What an INSERT's {@code parameter} gets: it is filled, or the entities it holds are. */
    public void fill(Object parameter) {
        if (!(parameter instanceof Map<?, ?>) && !(parameter instanceof Collection<?>)
                && !(parameter instanceof Object[])) {
            entities.fill(parameter);
            return;
        }
        // A mapper's parameters come as a map that names one object several times ("list",
        // "collection", "param1"): fill each object once.
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Object> found = new ArrayList<>();
        collect(parameter, seen, found);
        entities.fillAll(found);
    }

    private void collect(Object value, Set<Object> seen, List<Object> found) {
        if (value == null || !seen.add(value)) {
            return;
        }
        if (value instanceof Map<?, ?> map) {
            for (Object v : map.values()) {
                collect(v, seen, found);
            }
        } else if (value instanceof Collection<?> c) {
            for (Object v : c) {
                collect(v, seen, found);
            }
        } else if (value instanceof Object[] array) {
            for (Object v : array) {
                collect(v, seen, found);
            }
        } else if (!entities.slots(value.getClass()).isEmpty()) {
            found.add(value);
        }
    }

    /**
     * Checks the parameter type of every INSERT of {@code configuration} that names one
     * ({@code parameterType}, or a mapper method's single entity parameter), so a field that
     * cannot be filled fails at start-up, naming it. Inserts that take a list or several
     * parameters are checked on their first call.
     *
     * @throws IllegalArgumentException naming the statement and the field
     */
    public void check(Configuration configuration) {
        for (Object o : configuration.getMappedStatements()) {
            if (!(o instanceof MappedStatement statement)
                    || statement.getSqlCommandType() != SqlCommandType.INSERT) {
                continue;
            }
            Class<?> type = statement.getParameterMap().getType();
            if (type == null || type.isPrimitive() || type.isArray()
                    || Map.class.isAssignableFrom(type)
                    || Collection.class.isAssignableFrom(type)
                    || type.getName().startsWith("java.")) {
                continue;
            }
            try {
                entities.check(type);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MyBatis statement " + statement.getId()
                        + ": " + e.getMessage(), e);
            } catch (io.idmint.spi.RegistryException e) {
                throw new IllegalStateException("MyBatis statement " + statement.getId()
                        + ": cannot check its segment tags: " + e.getMessage(), e);
            }
        }
    }
}
