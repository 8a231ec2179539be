import { busTables } from '@cardlens/bus';

/** billing's outbox and processed-message tables (one definition for every writer and consumer). */
export const BILLING_BUS_TABLES = busTables('billing');
