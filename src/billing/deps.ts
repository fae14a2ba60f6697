// What billing works with: the dependencies createBilling takes, handed as one explicit object to each of its functions.
import type { Db } from "../db";
import type { Clock, Logger } from "../kernel";
import type { Config } from "../config";
import type { JobEngine } from "../jobs";
import type { PaymentPlugin } from "../plugins";
import type { Webhooks } from "../webhooks";

export type BillingDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  payment: PaymentPlugin;
  jobs: JobEngine;
  webhooks: Webhooks;
};
