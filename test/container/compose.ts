// The operator's first hour with compose.yaml under podman-compose (run by .ci/run after the
// image's smoke test, not by `npm test`), following docs/operations.md, "Compose", step by step:
//   npx tsx test/container/compose.ts
// From a copy of this checkout (git's files, so never a local .env): `cp deploy/env.example .env`
// filled in, `up`, the first key from the logs, a site registered through Caddy, a v3 token
// earned on app1 and redeemed once across both, a report, `down` and `up` with the data kept;
// then a rolling upgrade to a second image under a load of siteverify calls and report reads
// through Caddy; then pg_dump, and a fresh project restored from the dump. Caddy is published on
// 127.0.0.1 alone. Every wait has a deadline; every project is removed on exit, failed or not.
// Needs CONTAINERS_CONF (and NPMRC_CA behind an intercepting proxy) from prepare-compose.sh.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { solveWork } from '../helpers/solve.ts';
import { freePort, json, run, sleep, Stack, until, type Answer } from './compose-stack.ts';
import { startLoad } from './compose-load.ts';

const root = path.resolve(import.meta.dirname, '../..');
const tag = `acc${process.pid}`;
const buildArgs = process.env.NPMRC_CA
  ? `--secret id=npmrc,src=${process.env.NPMRC_CA} --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`
  : '';
const origin = 'https://shop.example';
const browserHeaders = {
  Origin: origin,
  'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
  'Accept-Language': 'en-GB,en;q=0.9',
};
let failed = false;
const stacks: Stack[] = [];
const image = `localhost/auditcaptcha:${tag}`;
const images: string[] = [image]; // removed on exit: this run's tag, then each image it built
let dir = '';

function check(what: string, ok: boolean, detail = ''): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failed = true;
}

function must(what: string, ok: boolean, detail = ''): void {
  check(what, ok, detail);
  if (!ok) throw new Error(`${what} failed`);
}

const times: [string, number][] = [];
async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  console.log(`== ${name}`);
  const started = performance.now();
  try {
    return await fn();
  } finally {
    const s = (performance.now() - started) / 1000;
    times.push([name, s]);
    console.log(`== ${name}: ${s.toFixed(1)} s`);
  }
}

/** A v3 token for `sitekey`: both steps through `send` (Caddy or one instance), the work solved here. */
async function earn(send: (body: unknown) => Promise<Answer> | Answer, sitekey: string): Promise<string> {
  const fields = { sitekey, action: 'login' };
  const first = await send(fields);
  if (first.status !== 201) throw new Error(`challenge: ${first.status} ${JSON.stringify(first.body)}`);
  const work = first.body.challenge as { ticket: string; id: string; count: number; bits: number };
  const done = await send({ ...fields, work: work.ticket, solutions: solveWork(work).solutions });
  if (done.status !== 201) throw new Error(`proof: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body.token as string;
}

const viaCaddy = (stack: Stack) => (body: unknown) =>
  json(`${stack.base}/api/v3/challenges`, { method: 'POST', headers: browserHeaders, body: JSON.stringify(body) });

/** The .env of docs/operations.md, "Compose", step 1; Caddy on 127.0.0.1:port. */
function fillEnv(port: number, httpsPort: number): void {
  run('cp', ['deploy/env.example', '.env'], { cwd: dir });
  const values: Record<string, string> = {
    TOKEN_KEY: randomBytes(32).toString('hex'),
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
    METRICS_TOKEN: randomBytes(16).toString('hex'),
    HTTP_PORT: `127.0.0.1:${port}`,
    HTTPS_PORT: `127.0.0.1:${httpsPort}`,
    // An image of this run's own, so neither an operator's nor another run's is replaced.
    AUDITCAPTCHA_TAG: tag,
    // The report below is of a page of this stack, on the compose network.
    ANALYZER_ALLOW_PRIVATE: 'true',
  };
  setEnv(values);
}

function setEnv(values: Record<string, string>): void {
  const file = path.join(dir, '.env');
  let text = readFileSync(file, 'utf8');
  for (const [k, v] of Object.entries(values)) {
    if (!new RegExp(`^${k}=`, 'm').test(text)) throw new Error(`${k} is not in deploy/env.example`);
    text = text.replace(new RegExp(`^${k}=.*$`, 'm'), `${k}=${v}`);
  }
  writeFileSync(file, text, { mode: 0o600 });
}

const env = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(readFileSync(path.join(dir, '.env'), 'utf8'))?.[1] ?? '';

/** docs/operations.md, "Upgrades": build, then each instance replaced and healthy before the next. */
async function replace(stack: Stack, service: string): Promise<number> {
  const started = performance.now();
  stack.compose(['stop', '-t', '20', service], 60_000);
  run('podman', ['rm', stack.container(service)]);
  stack.up([service]);
  await until(`${service} healthy`, 120_000, () => stack.healthy(service), 1000);
  // Two of Caddy's health checks (health_interval 5s), so it sends to the new instance again.
  await sleep(10_000);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const port = await freePort();
  const httpsPort = await freePort();
  await phase('checkout and .env', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'auditcaptcha-compose-'));
    const files = run('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root });
    run('tar', ['-C', root, '--null', '-T', '-', '-cf', path.join(dir, 'src.tar')], { input: files });
    run('tar', ['-xf', 'src.tar'], { cwd: dir });
    rmSync(path.join(dir, 'src.tar'));
    fillEnv(port, httpsPort);
  });
  const a = new Stack(`${tag}a`, dir, `http://127.0.0.1:${port}`, buildArgs);
  stacks.push(a);

  await phase('compose up (image build included)', async () => {
    a.up([], { build: true });
    const ms = await a.ready(180_000);
    check(`ready through Caddy ${(ms / 1000).toFixed(1)} s after up returned`, true);
  });

  const ctx = await phase('operator: key, site, token, report', async () => {
    const keys = [...a.logs('app1', 'app2').matchAll(/API key \(shown once, keep it\): (ak_\S+)/g)].map((m) => m[1]);
    must('the first API key is printed once, by app1 or app2', keys.length === 1, `${keys.length} key line(s)`);
    const key = keys[0];
    check('the key works through Caddy', (await json(`${a.base}/api/v1/account`, { key })).status === 200);
    const metrics = await fetch(`${a.base}/metrics`, { headers: { Authorization: `Bearer ${env('METRICS_TOKEN')}` } });
    check('/metrics answers with METRICS_TOKEN', metrics.status === 200 && (await metrics.text()).includes('# HELP'));
    check('/metrics refuses without it', (await fetch(`${a.base}/metrics`)).status === 401);

    const site = await json(`${a.base}/trpc/sites.create`, {
      method: 'POST',
      key,
      body: JSON.stringify({ name: 'shop', origins: [origin], min_score: 0 }),
    });
    const { sitekey, secret } = (site.body?.result?.data?.data ?? {}) as { sitekey: string; secret: string };
    must('registers a site through Caddy', site.status === 200 && Boolean(sitekey && secret), String(site.status));

    // Earned on app1, redeemed on app2, refused on app1: the token key and the spent tokens are shared.
    const token = await earn(
      (body) => a.inside('app1', '/api/v3/challenges', { method: 'POST', headers: browserHeaders, body }),
      sitekey,
    );
    const verify = (service: string) =>
      a.inside(service, '/api/v1/siteverify', { method: 'POST', body: { secret, response: token } });
    const first = verify('app2');
    check('a token earned on app1 is redeemed on app2', first.body?.success === true, JSON.stringify(first.body));
    const second = verify('app1');
    check(
      'its second redemption, on app1, is refused',
      second.body?.success === false && second.body['error-codes']?.includes('timeout-or-duplicate'),
      JSON.stringify(second.body?.['error-codes']),
    );

    // The report's page is named by its service; either instance may take the request.
    const named = await until('app1 and app2 resolve proxy', 120_000, () =>
      ['app1', 'app2'].every((s) => a.resolves(s, 'proxy')),
    );
    console.log(`the network's names resolve in app1 and app2 ${(named / 1000).toFixed(1)} s into this step`);
    const report = await json(`${a.base}/api/v1/reports`, {
      method: 'POST',
      key,
      body: JSON.stringify({ url: 'http://proxy/console' }),
    });
    const reportId = report.body?.data?.id as number | undefined;
    must(
      'creates a report',
      report.status === 201 && typeof reportId === 'number',
      `${report.status} ${JSON.stringify(report.body).slice(0, 200)}`,
    );
    console.log(`restarts before ready: app1 ${a.restarts('app1')}, app2 ${a.restarts('app2')}`);
    return { key, sitekey, secret, token, reportId: reportId! };
  });

  /** The data of the operator phase is there: key, site, report, the spent token still spent. */
  const dataKept = async (stack: Stack, what: string) => {
    const account = await json(`${stack.base}/api/v1/account`, { key: ctx.key });
    const sites = await json(`${stack.base}/trpc/sites.list`, { key: ctx.key });
    const listed = JSON.stringify(sites.body).includes(ctx.sitekey);
    const report = await json(`${stack.base}/api/v1/reports/${ctx.reportId}`, { key: ctx.key });
    check(
      `${what}: the key, the site and the report are there`,
      account.status === 200 && listed && report.status === 200,
      `${account.status} ${listed} ${report.status}`,
    );
    const again = await json(`${stack.base}/api/v1/siteverify`, {
      method: 'POST',
      body: JSON.stringify({ secret: ctx.secret, response: ctx.token }),
    });
    check(
      `${what}: the token spent before is refused`,
      again.body?.success === false,
      JSON.stringify(again.body?.['error-codes']),
    );
  };

  await phase('down, up: the data kept', async () => {
    a.compose(['down', '-t', '20'], 120_000);
    a.up();
    await a.ready(120_000);
    const keyLines = (a.logs('app1', 'app2').match(/API key \(shown once/g) ?? []).length;
    check('no new API key is printed', keyLines === 0, `${keyLines} key line(s)`);
    await dataKept(a, 'after down and up');
  });

  await phase('rolling upgrade under load', async () => {
    const before = run('podman', ['image', 'inspect', '--format', '{{.Id}}', image]).trim();
    images.push(before);
    // The trivial change of a release: a label in the runtime stage.
    const file = path.join(dir, 'Containerfile');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '\nEXPOSE 3000\n',
        `\nLABEL org.opencontainers.image.version="${tag}"\nEXPOSE 3000\n`,
      ),
    );
    const tokens: string[] = [];
    const earnAt = performance.now();
    for (let i = 0; i < 12; i++) tokens.push(await earn(viaCaddy(a), ctx.sitekey));
    console.log(
      `${tokens.length} tokens earned through Caddy in ${((performance.now() - earnAt) / 1000).toFixed(1)} s`,
    );
    const load = startLoad({
      base: a.base,
      key: ctx.key,
      secret: ctx.secret,
      reportId: ctx.reportId,
      spent: ctx.token,
      tokens,
    });
    await sleep(3000);
    a.compose(['--podman-build-args', buildArgs, 'build', 'app1'], 600_000);
    const after = run('podman', ['image', 'inspect', '--format', '{{.Id}}', image]).trim();
    images.push(after);
    must('the second image is built', after !== before);
    for (const service of ['app1', 'app2']) {
      const ms = await replace(a, service);
      const image = run('podman', ['inspect', '--format', '{{.Image}}', a.container(service)]).trim();
      check(`${service} replaced by the new image in ${(ms / 1000).toFixed(1)} s`, image === after);
    }
    const result = await load.stop();
    console.log(`load: ${JSON.stringify(result.counts)}`);
    check(
      'no request failed that a client would not retry',
      result.failures.length === 0,
      result.failures.slice(0, 5).join('; '),
    );
    check(
      'every fresh token redeemed exactly once',
      result.redeemedOnce === tokens.length,
      `${result.redeemedOnce} of ${tokens.length}`,
    );
    const again = await Promise.all(
      tokens.map((t) =>
        json(`${a.base}/api/v1/siteverify`, {
          method: 'POST',
          body: JSON.stringify({ secret: ctx.secret, response: t }),
        }),
      ),
    );
    const spent = (r: Answer) => r.body?.success === false && r.body['error-codes']?.includes('timeout-or-duplicate');
    check(
      'no token redeems twice',
      again.every(spent),
      `${again.filter((r) => !spent(r)).length} not refused as spent`,
    );
  });

  const dump = path.join(dir, 'auditcaptcha.dump');
  await phase('backup (pg_dump)', async () => {
    // docs/operations.md, "Backups": podman exec straight to the container, so no line of
    // podman-compose's own (it prints each command it runs, the password among them) lands in the file.
    run(
      'sh',
      ['-c', `podman exec ${a.container('postgres')} pg_dump -U auditcaptcha -Fc auditcaptcha > auditcaptcha.dump`],
      { cwd: dir },
    );
    const bytes = readFileSync(dump);
    check(
      `the dump is pg_dump's custom format, ${(statSync(dump).size / 1024).toFixed(0)} KB`,
      bytes.subarray(0, 5).toString() === 'PGDMP',
    );
    check(
      'the dump holds no secret of .env',
      !['POSTGRES_PASSWORD', 'TOKEN_KEY', 'METRICS_TOKEN'].some((k) => bytes.includes(env(k))),
    );
  });

  await phase('restore into a fresh project', async () => {
    a.compose(['down', '-t', '20'], 120_000);
    const b = new Stack(`${tag}b`, dir, a.base, buildArgs);
    stacks.push(b);
    // A fresh Valkey has no spent marks: with a new TOKEN_KEY every token of the old stack is refused.
    setEnv({ TOKEN_KEY: randomBytes(32).toString('hex') });
    b.up(['postgres']);
    await until('postgres healthy', 60_000, () => b.healthy('postgres'), 1000);
    run(
      'sh',
      [
        '-c',
        `podman exec -i ${b.container('postgres')} pg_restore -U auditcaptcha -d auditcaptcha --no-owner --exit-on-error < auditcaptcha.dump`,
      ],
      { cwd: dir },
    );
    b.up();
    await b.ready(120_000);
    const keyLines = (b.logs('app1', 'app2').match(/API key \(shown once/g) ?? []).length;
    check('the restored stack prints no new key', keyLines === 0, `${keyLines} key line(s)`);
    await dataKept(b, 'restored');
    const fresh = await earn(viaCaddy(b), ctx.sitekey);
    const verified = await json(`${b.base}/api/v1/siteverify`, {
      method: 'POST',
      body: JSON.stringify({ secret: ctx.secret, response: fresh }),
    });
    check(
      "the restored site's secret redeems a new token",
      verified.body?.success === true,
      JSON.stringify(verified.body?.['error-codes']),
    );
  });
}

function cleanup(): void {
  for (const s of stacks.reverse()) s.destroy();
  for (const id of images) spawnSync('podman', ['rmi', '-f', id]);
  if (dir) rmSync(dir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`${signal}: removing the projects`);
    cleanup();
    process.exit(1);
  });
}

const started = performance.now();
main()
  .catch((err: unknown) => {
    failed = true;
    console.error(err instanceof Error ? err.message : String(err));
    for (const s of stacks) {
      try {
        console.error(s.logs('app1', 'app2', 'proxy').split('\n').slice(-40).join('\n'));
      } catch {
        // gone already
      }
    }
  })
  .finally(() => {
    const cleanupAt = performance.now();
    cleanup();
    times.push(['teardown', (performance.now() - cleanupAt) / 1000]);
    console.log(times.map(([n, s]) => `${n}: ${s.toFixed(1)} s`).join('\n'));
    console.log(
      `compose test ${failed ? 'FAILED' : 'passed'} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    process.exit(failed ? 1 : 0);
  });
