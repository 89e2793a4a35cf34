/** A MyBatis application that must fail to start (MybatisSampleIT). */
package io.idmint.mybatis.bad;
