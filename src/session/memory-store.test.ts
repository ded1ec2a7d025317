import { sessionStoreContract } from '../../test/contracts/session-store.contract.js';
import { InMemorySessionStore } from './memory-store.js';

sessionStoreContract('memory', async () => new InMemorySessionStore());
