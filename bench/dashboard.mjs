// npm run build && node bench/dashboard.mjs: the dashboard's first-load figures alone.
import { measureDashboard } from './lib/dashboard.mjs';

console.log(JSON.stringify(await measureDashboard(), null, 2));
