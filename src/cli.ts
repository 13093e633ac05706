// Administration CLI: `npm run cli -- <command> [--flag value]...`
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { createPool } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { sealStoredSecrets } from './db/sealed-secrets.js';
import { sharedSecret } from './db/repos/settings.js';
import { addMember, createOrganization, createToken, createUser } from './services/identity.js';
import { findUserByEmail } from './db/repos/users.js';
import { ROLES } from './core/roles.js';
import { ALL_QUEUES, type QueueName } from './config.js';
import { JobClient } from './queue/client.js';
import { createLogger } from './log.js';
import { pingWorkers, waitForOperation } from './services/workers.js';

const USAGE = `Usage: npm run cli -- <command> [options]

  org create --title <title> [--admin <email>]      create an organization (the user becomes its admin)
  user create --email <email> [--name <name>] [--operator]
                                                   create a user (operators may open the job dashboard)
  member add --org <orgId> --email <email> --role <admin|create|review|edit|comment|read|guest>
  token create --email <email> [--label <label>]   issue an API token (printed once)
  migrate                                          apply pending database migrations (and seal credentials stored in clear)
  workers ping [--queue <queue>] [--timeout <seconds>]
                                                   run a job that does nothing on a worker pool (default: maintenance)
                                                   and wait for it: exits 0 once a worker ran it, 1 otherwise
`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    title: { type: 'string' },
    admin: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    operator: { type: 'boolean' },
    org: { type: 'string' },
    role: { type: 'string' },
    label: { type: 'string' },
    queue: { type: 'string' },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const config = loadConfig();
const db = createPool(config.databaseUrl, 2);
const need = (name: keyof typeof values) => (values[name] as string | undefined) ?? fail(`--${name} is required`);
async function userByEmail(email: string) {
  return (await findUserByEmail(db, email)) ?? fail(`No user with email ${email}`);
}

try {
  await migrate(db);
  const cmd = positionals.join(' ');
  if (values.help || !cmd) {
    process.stdout.write(USAGE);
  } else if (cmd === 'migrate') {
    // Credentials an earlier version stored in clear are sealed here too (AUTO_MIGRATE=false setups).
    const sealed = await sealStoredSecrets(db, config.secretKey ?? (await sharedSecret(db)));
    process.stdout.write(`migrations applied${sealed ? `; ${sealed} stored credential(s) sealed` : ''}\n`);
  } else if (cmd === 'org create') {
    const admin = values.admin ? await userByEmail(values.admin) : undefined;
    const org = await createOrganization(db, { title: need('title'), adminUserId: admin?.id });
    process.stdout.write(`${org.id}\n`);
  } else if (cmd === 'user create') {
    const user = await createUser(db, { email: need('email'), displayName: values.name, operator: values.operator });
    process.stdout.write(`${user.id}\n`);
  } else if (cmd === 'member add') {
    const role = need('role');
    if (role !== 'guest' && !(ROLES as readonly string[]).includes(role)) fail(`Unknown role ${role}`);
    const user = await userByEmail(need('email'));
    await addMember(db, need('org'), user.id, role === 'guest' ? null : (role as (typeof ROLES)[number]));
    process.stdout.write('ok\n');
  } else if (cmd === 'token create') {
    const user = await userByEmail(need('email'));
    process.stdout.write(`${await createToken(db, user.id, values.label)}\n`);
  } else if (cmd === 'workers ping') {
    const queue = values.queue ?? 'maintenance';
    if (!(ALL_QUEUES as readonly string[]).includes(queue)) fail(`Unknown queue ${queue} (known: ${ALL_QUEUES.join(', ')})`);
    const timeoutS = Number(values.timeout ?? 30);
    if (!(timeoutS > 0)) fail('--timeout must be a positive number of seconds');
    const jobs = new JobClient(config);
    try {
      const log = createLogger('warn', 'cli', config.logFormat);
      const op = await pingWorkers({ db, jobs, log }, queue as QueueName);
      const acceptedAt = performance.timeOrigin + performance.now();
      const done = await waitForOperation({ db }, op.id, timeoutS * 1000);
      if (!done) {
        process.stderr.write(`no worker of queue ${queue} ran operation ${op.id} within ${timeoutS} s\n`);
        process.exitCode = 1;
      } else if (done.status !== 'succeeded') {
        process.stderr.write(`operation ${op.id} ${done.status}: ${done.error ?? ''}\n`);
        process.exitCode = 1;
      } else {
        const r = done.result as { worker?: string; startedAt?: number };
        // Two processes' clocks: a negative difference is skew, shown as 0.
        const wait = typeof r?.startedAt === 'number' ? ` after ${Math.max(0, r.startedAt - acceptedAt).toFixed(1)} ms in the queue` : '';
        process.stdout.write(`ok: ${r?.worker ?? 'a worker'} of queue ${queue} ran it${wait}\n`);
      }
    } finally {
      await jobs.close();
    }
  } else {
    fail(`Unknown command "${cmd}"`);
  }
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.end();
}
