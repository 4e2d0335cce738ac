#!/usr/bin/env node
/**
 * "Install only what you need", proven before anything is published: packs every public package
 * the way it would be published (pnpm rewrites workspace:^ ranges; private ones, such as the test
 * support @dftracer/testing, are skipped and no tarball may need them), checks each tarball's
 * exports and types with publint and @arethetypeswrong/cli, then installs tarballs into fresh npm
 * projects outside the workspace and runs real programs there:
 *   1. @dftracer/core alone: `node --import @dftracer/core/register` traces an unmodified program;
 *   2. core + @dftracer/tfjs + @tensorflow/tfjs: loadTf takes the cpu backend and reports it;
 *      core + @dftracer/tfjs + @dftracer/ai + @tensorflow/tfjs: an ai.data.item program runs, and
 *      no other integration, no analyzer, DuckDB or tfjs-node comes along;
 *   3. @dftracer/dynamo, then @dftracer/profiler, each with core + @dftracer/tfjs +
 *      @tensorflow/tfjs only, trace a model (finding tfjs by themselves);
 *   4. the analyzer's `dftracer` bin through `npx`, from its tarball alone (no @dftracer/core,
 *      no test support in it), validates and summarises (1).
 *
 *   node scripts/pack-check.mjs [--keep]     (packages must be built: `pnpm build`)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(root, 'scripts', 'pack-check');
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'dftracer-pack-'));
const tarDir = join(work, 'tarballs');
mkdirSync(tarDir);
const results = [];
const started = Date.now();

/** Runs a command; its output is kept and printed only when it fails (or always with `show`). */
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? root, env: { ...process.env, ...opts.env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (opts.show || (r.status !== 0 && !opts.allowFail)) process.stdout.write(out.replace(/^npm warn Unknown user config.*\n/gm, ''));
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  return { status: r.status, out, stdout: r.stdout ?? '' };
}

async function step(name, fn) {
  const t0 = Date.now();
  process.stdout.write(`\n── ${name}\n`);
  try {
    const note = (await fn()) ?? '';
    results.push({ name, ok: true, note, s: (Date.now() - t0) / 1000 });
  } catch (e) {
    process.stdout.write(`FAILED: ${e.message}\n`);
    results.push({ name, ok: false, note: e.message, s: (Date.now() - t0) / 1000 });
  }
}

/** A root devDependency's bin. */
const bin = (name) => join(root, 'node_modules', '.bin', name);

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** A trace's events, read with nothing but zlib. */
function readTrace(file) {
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

function traceFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pfw.gz'))
    .map((f) => join(dir, f));
}

/** A fresh npm project outside the workspace, with the given tarballs and registry packages. */
function freshProject(name, specs) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }, null, 2));
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs], { cwd: dir });
  return dir;
}

/** Every package directory name under node_modules (scoped ones as @scope/name). */
function installed(dir) {
  const nm = join(dir, 'node_modules');
  const names = [];
  for (const e of readdirSync(nm)) {
    if (e.startsWith('.')) continue;
    if (e.startsWith('@')) for (const s of readdirSync(join(nm, e))) names.push(`${e}/${s}`);
    else names.push(e);
  }
  return names;
}

const workspace = readdirSync(join(root, 'packages'))
  .map((d) => join(root, 'packages', d))
  .filter((d) => existsSync(join(d, 'package.json')))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));
// Private packages (test support: @dftracer/testing) are never published, so never packed.
const packages = workspace.filter(({ pkg }) => !pkg.private);
const unpublished = new Set(workspace.filter(({ pkg }) => pkg.private).map(({ pkg }) => pkg.name));
const tarball = {};

await step(`pack ${packages.length} packages`, () => {
  // pnpm itself, found once through npx (each `npx pnpm` costs seconds): only pnpm rewrites workspace: ranges.
  const pnpm = sh('npx', ['-y', '-p', 'pnpm@9', 'sh', '-c', 'command -v pnpm']).stdout.trim();
  for (const { dir, pkg } of packages) {
    assert(existsSync(join(dir, 'dist')), `${pkg.name} is not built (run pnpm build)`);
    sh(pnpm, ['pack', '--pack-destination', tarDir], { cwd: dir });
    const file = join(tarDir, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
    assert(existsSync(file), `no tarball for ${pkg.name}`);
    const manifest = sh('tar', ['-xOzf', file, 'package/package.json']).out;
    assert(!manifest.includes('workspace:'), `${pkg.name}: a workspace: range survived packing`);
    const m = JSON.parse(manifest);
    const needed = Object.keys({ ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies }).filter((d) => unpublished.has(d));
    assert(needed.length === 0, `${pkg.name} needs unpublished ${needed.join(', ')} at run time`);
    tarball[pkg.name] = file;
  }
  return Object.keys(tarball).join(', ');
});

await step('publint (strict) on every tarball', () => {
  assert(Object.keys(tarball).length === packages.length, 'not every package was packed');
  for (const [name, file] of Object.entries(tarball)) {
    const r = sh(bin('publint'), ['run', '--strict', file], { allowFail: true });
    assert(r.status === 0, `${name}: publint found problems`);
  }
  return 'no errors, warnings or suggestions';
});

// node16 profile: the packages need Node ≥ 20, and TypeScript's `node10` resolution cannot see
// subpath exports (`@dftracer/core/register`) at all.
await step('@arethetypeswrong/cli (node16 profile) on every tarball', () => {
  assert(Object.keys(tarball).length === packages.length, 'not every package was packed');
  for (const [name, file] of Object.entries(tarball)) {
    const r = sh(bin('attw'), [file, '--profile', 'node16', '--no-color', '--format', 'table'], { allowFail: true });
    if (r.status !== 0) process.stdout.write(r.out);
    assert(r.status === 0, `${name}: attw found problems`);
  }
  return 'types resolve for ESM and CJS consumers';
});

let coreTrace;
await step('1. @dftracer/core alone: node --import @dftracer/core/register app.mjs', () => {
  assert(tarball['@dftracer/core'], 'no @dftracer/core tarball');
  const manifest = sh('tar', ['-xOzf', tarball['@dftracer/core'], 'package/package.json']).out;
  assert(!manifest.includes('@tensorflow/'), '@dftracer/core names a tfjs package in its package.json');
  const dir = freshProject('core-only', [tarball['@dftracer/core']]);
  const deps = installed(dir);
  assert(deps.join() === '@dftracer/core', `core alone should install nothing else, got ${deps.join(', ')}`);
  cpSync(join(fixtures, 'core-app.mjs'), join(dir, 'app.mjs'));
  const data = join(dir, 'data');
  const logDir = join(dir, 'traces');
  mkdirSync(logDir);
  const r = sh('node', ['--import', '@dftracer/core/register', 'app.mjs', data], {
    cwd: dir,
    env: { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(logDir, 'app'), DFTRACER_DATA_DIR: data },
  });
  assert(r.out.includes('read 32768 bytes'), 'the program did not run to its end');
  const files = traceFiles(logDir);
  assert(files.length === 1, `expected one trace file, found ${files.length}`);
  const events = readTrace(files[0]);
  const posix = events.filter((e) => e.cat === 'POSIX');
  const names = new Set(posix.map((e) => e.name));
  for (const n of ['open', 'read', 'write', 'close']) assert(names.has(n), `no POSIX ${n} event (got ${[...names].join(', ')})`);
  assert(events.at(-1)?.name === 'end', 'the trace has no end event');
  coreTrace = files[0];
  return `${posix.length} POSIX events (${[...names].sort().join(', ')}); node_modules: ${deps.join(', ')}`;
});

await step('2. core + @dftracer/tfjs + @tensorflow/tfjs: loadTf', () => {
  const dir = freshProject('tfjs-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], '@tensorflow/tfjs@^4.22.0']);
  const deps = installed(dir);
  const unwanted = deps.filter((d) => /^@dftracer\/(ai|dynamo|profiler|analyzer)$|^@tensorflow\/tfjs-(node|backend-webgpu)|^webgpu$/.test(d));
  assert(unwanted.length === 0, `installed what was not asked for: ${unwanted.join(', ')}`);
  cpSync(join(fixtures, 'tfjs-app.mjs'), join(dir, 'app.mjs'));
  const logDir = join(dir, 'traces');
  mkdirSync(logDir);
  const r = sh('node', ['app.mjs'], { cwd: dir, env: { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(logDir, 'app') } });
  assert(/loaded @tensorflow\/tfjs on cpu \(cpu\), handed over: true, sum 28/.test(r.out), `loadTf did not load tfjs's cpu backend:\n${r.out}`);
  const files = traceFiles(logDir);
  assert(files.length === 1, `expected one trace file, found ${files.length}`);
  const cm = readTrace(files[0]).filter((e) => e.name === 'CM' && e.args?.name === 'tfjs');
  assert(cm.length === 1 && JSON.parse(cm[0].args.value).backend === 'cpu', `expected one tfjs CM record on cpu, got ${JSON.stringify(cm)}`);
  return `${r.out.match(/^loaded .*$/m)[0]}; tfjs CM record written; @dftracer packages installed: ${deps.filter((d) => d.startsWith('@dftracer/')).join(', ')}`;
});

const aiDist = join(root, 'packages', 'ai', 'dist', 'index.js');
const aiReady = existsSync(aiDist) && typeof (await import(pathToFileURL(aiDist).href)).ai?.data?.item === 'function';
if (!aiReady) {
  results.push({ name: '2. core + @dftracer/ai + @tensorflow/tfjs', ok: true, note: 'skipped: @dftracer/ai exports no `ai` yet', s: 0 });
} else {
  await step('2. core + @dftracer/tfjs + @dftracer/ai + @tensorflow/tfjs: an ai.data.item program', () => {
    const dir = freshProject('ai-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], tarball['@dftracer/ai'], '@tensorflow/tfjs@^4.22.0']);
    const deps = installed(dir);
    const unwanted = deps.filter((d) => /^@dftracer\/(dynamo|profiler|analyzer)$|^@duckdb\/|duckdb|^@tensorflow\/tfjs-node/.test(d));
    assert(unwanted.length === 0, `installed what was not asked for: ${unwanted.join(', ')}`);
    cpSync(join(fixtures, 'ai-app.mjs'), join(dir, 'app.mjs'));
    const data = join(dir, 'data');
    const logDir = join(dir, 'traces');
    mkdirSync(logDir);
    const r = sh('node', ['app.mjs', data], { cwd: dir, env: { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(logDir, 'app') } });
    assert(/sum 448 on tfjs/.test(r.out), `the program did not compute its result (16 × (0 + … + 7) = 448):\n${r.out}`);
    const files = traceFiles(logDir);
    assert(files.length === 1, `expected one trace file, found ${files.length}`);
    const events = readTrace(files[0]);
    const items = events.filter((e) => e.cat === 'data' && e.ph === 'X');
    assert(items.length >= 8, `expected 8 data item events, got ${items.length}`);
    const itemIds = new Set(items.map((e) => e.id));
    const nested = events.filter((e) => e.cat === 'POSIX' && e.name === 'read' && itemIds.has(e.args?.p_idx));
    assert(nested.length >= 8, `expected POSIX reads nested under data items, got ${nested.length}`);
    const ours = deps.filter((d) => d.startsWith('@dftracer/')).join(', ');
    return `${items.length} data events, ${nested.length} reads nested in them; @dftracer packages installed: ${ours}; ${deps.length} packages in all`;
  });
}

// The other integrations alone, each with core and the tfjs layer only.
for (const [pkg, app, cat, says] of [
  ['@dftracer/dynamo', 'dynamo-app.mjs', 'dynamo', /output \[5,2\]/],
  ['@dftracer/profiler', 'profiler-app.mjs', 'PP', /profiled/],
]) {
  await step(`3. ${pkg} with core, @dftracer/tfjs and @tensorflow/tfjs only`, () => {
    const dir = freshProject(pkg.split('/')[1] + '-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], tarball[pkg], '@tensorflow/tfjs@^4.22.0']);
    const deps = installed(dir);
    const others = deps.filter((d) => d.startsWith('@dftracer/') && d !== pkg && d !== '@dftracer/core' && d !== '@dftracer/tfjs');
    assert(others.length === 0, `installed other dftracer packages: ${others.join(', ')}`);
    cpSync(join(fixtures, app), join(dir, 'app.mjs'));
    const logDir = join(dir, 'traces');
    mkdirSync(logDir);
    const r = sh('node', ['app.mjs'], { cwd: dir, env: { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(logDir, 'app') } });
    assert(says.test(r.out), `the program did not finish:\n${r.out}`);
    const files = traceFiles(logDir);
    assert(files.length === 1, `expected one trace file, found ${files.length}`);
    const n = readTrace(files[0]).filter((e) => e.cat === cat).length;
    assert(n > 0, `no ${cat} events`);
    return `${n} ${cat} events; @dftracer packages installed: ${deps.filter((d) => d.startsWith('@dftracer/')).join(', ')}`;
  });
}

await step('4. npx dftracer (the analyzer bin, from its tarball)', () => {
  assert(coreTrace, 'no trace from step 1 to analyse');
  const dir = join(work, 'npx');
  mkdirSync(dir);
  // the analyzer alone: it needs nothing of the tracer, and ships no test support
  const tgz = tarball['@dftracer/analyzer'];
  const listing = sh('tar', ['-tzf', tgz]).stdout;
  assert(!/test-util|testing|\.test\./.test(listing), `the analyzer's tarball ships test support:\n${listing}`);
  const manifest = JSON.parse(sh('tar', ['-xzOf', tgz, 'package/package.json']).stdout);
  assert(!manifest.dependencies?.['@dftracer/core'], 'the analyzer depends on @dftracer/core at run time');
  const pkgs = ['--package', tgz];
  const v = sh('npx', ['-y', ...pkgs, 'dftracer', 'validate', coreTrace], { cwd: dir, env: { npm_config_loglevel: 'error' } });
  assert(/^valid: 1 file/m.test(v.out), `validate did not say valid:\n${v.out}`);
  const s = sh('npx', ['-y', ...pkgs, 'dftracer', 'summary', '--json', coreTrace], { cwd: dir, env: { npm_config_loglevel: 'error' } });
  const json = JSON.parse(s.out.slice(s.out.indexOf('{')));
  const bytes = JSON.stringify(json).match(/"bytes_?read"\s*:\s*(\d+)/i)?.[1];
  return `validate: ${v.out.trim().split('\n').at(-1)}; summary ran (DuckDB from npm)${bytes ? `, ${bytes} bytes read` : ''}`;
});

if (!keep) rmSync(work, { recursive: true, force: true });
process.stdout.write(`\npack-check (${((Date.now() - started) / 1000).toFixed(0)} s)${keep ? `, kept in ${work}` : ''}\n`);
for (const r of results) process.stdout.write(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.s.toFixed(1)} s)${r.note ? `\n       ${r.note}` : ''}\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
