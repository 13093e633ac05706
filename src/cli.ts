// Administration CLI: `npm run cli -- <command> [--flag value]...`
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { createPool } from './db/pool.js';
import { migrate } from './db/migrate.js';
import { sealStoredSecrets } from './db/sealed-secrets.js';
import { sharedSecret } from './db/repos/settings.js';
import { addMember, createOrganization, createUser, issueToken } from './services/identity.js';
import { recordAudit } from './services/audit.js';
import { organizationsOfUser } from './db/repos/audit.js';
import { findUserByEmail } from './db/repos/users.js';
import { ROLES } from './core/roles.js';
import { ALL_QUEUES, type QueueName } from './config.js';
import { JobClient } from './queue/client.js';
import { createLogger } from './log.js';
import { pingWorkers, waitForOperation } from './services/workers.js';
import { ensureDatabase } from './db/ensure-database.js';
import { createBlobStore } from './storage/index.js';
import { backup } from './ops/backup.js';
import { restore } from './ops/backup-restore.js';

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
  backup <dir>                                     write a consistent copy of the database and the stored files into <dir>
                                                   (new or empty); SECRET_KEY is not in it: keep it apart (docs/backups.md)
  restore <dir> [--new-secret-key]                 restore a backup into an empty database and empty storage (the
                                                   configured ones); refuses anything else. --new-secret-key: restore
                                                   although SECRET_KEY is not the backed-up key (sealed credentials are lost)
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
    'new-secret-key': { type: 'boolean' },
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

/** backup and restore: never migrate first (a backup copies the database as it is; a restore migrates to the backup's level). */
async function backupOrRestore(verb: 'backup' | 'restore', dir: string | undefined): Promise<void> {
  if (!dir || positionals.length !== 2) fail(`${verb} takes one folder: npm run cli -- ${verb} <dir>`);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (verb === 'restore' && (await ensureDatabase(config.databaseUrl))) say('database created');
  const blobs = await createBlobStore(config.storage);
  try {
    const deps = { db, blobs, config, say };
    if (verb === 'backup') {
      const m = await backup(deps, dir);
      process.stdout.write(
        `backup written to ${dir}: migration ${m.migration.name}, ${m.tables.length} tables, ${m.blobs.objects} stored objects\n`,
      );
    } else {
      const m = await restore(deps, dir, { newSecretKey: values['new-secret-key'] });
      process.stdout.write(`restored ${dir} (made ${m.createdAt}) into the configured database and ${blobs.driver} storage\n`);
    }
  } finally {
    await blobs.close();
  }
}

try {
  const cmd = positionals.join(' ');
  const verb = positionals[0];
  if (verb !== 'backup' && verb !== 'restore') await migrate(db);
  if (verb === 'backup' || verb === 'restore') {
    await backupOrRestore(verb, positionals[1]);
  } else if (values.help || !cmd) {
    process.stdout.write(USAGE);
  } else if (cmd === 'migrate') {
    // Credentials an earlier version stored in clear are sealed here too (AUTO_MIGRATE=false setups).
    const sealed = await sealStoredSecrets(db, config.secretKey ?? (await sharedSecret(db)));
    process.stdout.write(`migrations applied${sealed ? `; ${sealed} stored credential(s) sealed` : ''}\n`);
  } else if (cmd === 'org create') {
    const admin = values.admin ? await userByEmail(values.admin) : undefined;
    const org = await createOrganization(db, { title: need('title'), adminUserId: admin?.id });
    await recordAudit(db, {
      organizationIds: [org.id],
      action: 'orgs.create',
      actor: { type: 'system', id: 'cli', label: 'Administration CLI' },
      source: 'script',
      target: { type: 'organization', id: org.id, label: org.title },
      payload: admin ? { admin: admin.id } : {},
    });
    process.stdout.write(`${org.id}\n`);
  } else if (cmd === 'user create') {
    const user = await createUser(db, { email: need('email'), displayName: values.name, operator: values.operator });
    process.stdout.write(`${user.id}\n`);
  } else if (cmd === 'member add') {
    const role = need('role');
    if (role !== 'guest' && !(ROLES as readonly string[]).includes(role)) fail(`Unknown role ${role}`);
    const user = await userByEmail(need('email'));
    await addMember(db, need('org'), user.id, role === 'guest' ? null : (role as (typeof ROLES)[number]));
    await recordAudit(db, {
      organizationIds: [need('org')],
      action: 'members.set',
      actor: { type: 'system', id: 'cli', label: 'Administration CLI' },
      source: 'script',
      target: { type: 'user', id: user.id, label: user.display_name },
      payload: { role: role === 'guest' ? null : role },
    });
    process.stdout.write('ok\n');
  } else if (cmd === 'token create') {
    const user = await userByEmail(need('email'));
    const issued = await issueToken(db, user.id, values.label);
    await recordAudit(db, {
      organizationIds: await organizationsOfUser(db, user.id),
      action: 'tokens.create',
      actor: { type: 'system', id: 'cli', label: 'Administration CLI' },
      source: 'script',
      target: { type: 'api-token', id: issued.id, label: values.label ?? null },
      payload: { reason: 'cli', user: user.id },
    });
    process.stdout.write(`${issued.token}\n`);
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
