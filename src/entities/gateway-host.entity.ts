import { defineEntity, p } from '@mikro-orm/core';
import { SiteSchema } from './site.entity.ts';

/**
 * Which site protects a host in gateway mode: one row per host, the host its primary key, so
 * two accounts saving one host at the same moment cannot both win (the database refuses the
 * second). Written with the site's gateway settings (src/gateway/sites.ts), in one transaction.
 */
export const GatewayHostSchema = defineEntity({
  name: 'GatewayHost',
  tableName: 'gateway_hosts',
  indexes: [{ properties: ['site'] }],
  properties: {
    host: p.string().length(253).primary(),
    site: p.manyToOne(SiteSchema).deleteRule('cascade'),
  },
});
