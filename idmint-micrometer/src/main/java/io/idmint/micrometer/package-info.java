/**
 * Micrometer meters for idmint generators: {@link io.idmint.micrometer.IdmintMetrics} defines
 * every generator and segment meter once, for the server and for library users alike.
 */
package io.idmint.micrometer;
