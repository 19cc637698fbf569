// The tenant quota as other processes read it (the worker's Kafka listener): one subpath export,
// so the worker imports the lookup and its defaults without the rest of the api.
export {
  DEFAULT_QUOTA,
  forgetTenantQuota,
  quotaView,
  type TenantQuota,
  tenantQuota,
} from "./rate-limit.service";
