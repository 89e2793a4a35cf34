/** A MyBatis sample application whose rows idmint keys (MybatisSampleIT). */
package io.idmint.mybatis.app;
