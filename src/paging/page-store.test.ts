import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pageStoreContract } from '../../test/contracts/page-store.contract.js';
import { SqlitePageStore } from '../stores/sqlite/sqlite-page-store.js';
import { InMemoryPageStore } from './page-store.js';

pageStoreContract('memory', async () => new InMemoryPageStore());
const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-pages-'));
pageStoreContract('sqlite', async () => new SqlitePageStore({ path: path.join(dir, 'pages.db') }));
