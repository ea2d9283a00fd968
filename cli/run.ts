// Entry point of the `rlx` process (bin/rlx.js and the bundle both start here).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
