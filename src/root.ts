// The package's folder, whether this runs from the sources (src/, through tsx) or from the build
// (dist/src/, `npm run build`): where package.json and prisma/migrations are.
import { fileURLToPath } from 'node:url';

const here = new URL('.', import.meta.url);
export const PACKAGE_ROOT = fileURLToPath(new URL(here.pathname.endsWith('/dist/src/') ? '../../' : '../', here));
