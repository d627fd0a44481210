// Operator CLI. `queen-timers token --tenant acme --sub billing --grant produce [--grant read]
// [--expires 30d]` prints an HS256 token signed with QUEEN_JWT_SECRET (or, without it, with the
// embedded broker's secret in QUEEN_DATA_DIR).
import { parseArgs } from 'node:util';
import { GRANTS, mintToken, type Grant } from './auth.ts';
import { embeddedSecret } from './broker.ts';

const USAGE = `usage: queen-timers token --tenant <tenant> --sub <subject> --grant <${GRANTS.join('|')}> [--grant ...] [--expires 30d]`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== 'token') {
    console.error(USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      tenant: { type: 'string' },
      sub: { type: 'string' },
      grant: { type: 'string', multiple: true },
      expires: { type: 'string' },
    },
  });
  const grants = values.grant ?? [];
  const bad = grants.filter((g) => !(GRANTS as readonly string[]).includes(g));
  if (!values.tenant || !values.sub || grants.length === 0 || bad.length > 0) {
    if (bad.length) console.error(`unknown grant(s): ${bad.join(', ')}`);
    console.error(USAGE);
    return 2;
  }
  const secret = process.env.QUEEN_JWT_SECRET || (await embeddedSecret(process.env.QUEEN_DATA_DIR || '.queen-data'));
  console.log(await mintToken(secret, { tenant: values.tenant, sub: values.sub, grants: grants as Grant[], expiresIn: values.expires }));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
