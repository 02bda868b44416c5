// Committed migrations, applied in this order. One file per change; never edit one that has shipped.
import { Migration20261125000100_core } from './Migration20261125000100_core.js';

export const migrations = [{ name: 'Migration20261125000100_core', class: Migration20261125000100_core }];
