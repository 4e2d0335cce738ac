#!/usr/bin/env node
/**
 * "Install only what you need", proven before anything is published: packs every public package
 * the way it would be published (pnpm rewrites workspace:^ ranges; private ones, such as the test
 * support @dftracer/testing, are skipped and no tarball may need them), checks each tarball's
 * exports and types with publint and @arethetypeswrong/cli and `npm publish --dry-run`, runs
 * `changeset version` in a copy (a CHANGELOG per package), then installs tarballs into fresh npm
 * projects outside the workspace and runs real programs there, each twice: as an ES module
 * (`import`) and as its CommonJS twin (`require`), asserting the same effects in both traces:
 *   1. @dftracer/core alone: `node --import` (or `--require`) `@dftracer/core/register` traces an
 *      unmodified program's file I/O;
 *   2. core + @dftracer/tfjs + @tensorflow/tfjs: loadTf takes the cpu backend and records it;
 *      core + @dftracer/tfjs + @dftracer/ai + @tensorflow/tfjs: ai.data.item events with the reads
 *      nested under them and ai.compute.forward events with tensor facts, and no other
 *      integration, no analyzer, DuckDB or tfjs-node comes along;
 *   3. @dftracer/dynamo, then @dftracer/profiler, each with core + @dftracer/tfjs +
 *      @tensorflow/tfjs only, trace a model (finding tfjs by themselves): kernels nested under the
 *      compiled call; PP events of the profiled steps;
 *   4. the analyzer's `dftracer` bin through `npx`, from its tarball alone (no @dftracer/core,
 *      no test support in it), validates and summarises (1).
 *
 *   node scripts/pack-check.mjs [--keep]     (packages must be built: `pnpm build`)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * The CommonJS twin of an ESM app: the same program as a user would write it with `require`
 * (static imports become requires; the body runs in an async function for its top-level awaits).
 */
function commonJs(source) {
  const requires = [];
  const body = source.replace(/^import (.+?) from ('[^']+');\n/gm, (_, what, from) => {
    const ns = what.match(/^\* as (\w+)$/);
    requires.push(`const ${ns ? ns[1] : what.replace(/ as /g, ': ')} = require(${from});`);
    return '';
  });
  return `${requires.join('\n')}\n(async () => {\n${body}\n})().catch((e) => {\n  console.error(e);\n  process.exitCode = 1;\n});\n`;
}

/**
 * Runs a pack-check app in `dir` twice, as app.mjs (`import`) and as app.cjs (`require`), each
 * with its own trace directory; `check(run)` asserts on each run's output and trace events.
 */
function bothModuleSystems(dir, app, { args = [], env = {}, flags = () => [] }, check) {
  const source = readFileSync(join(fixtures, app), 'utf8');
  const notes = [];
  for (const [kind, file, text] of [
    ['esm', 'app.mjs', source],
    ['cjs', 'app.cjs', commonJs(source)],
  ]) {
    writeFileSync(join(dir, file), text);
    const logDir = join(dir, `traces-${kind}`);
    mkdirSync(logDir);
    const r = sh('node', [...flags(kind), file, ...args.map((a) => `${a}-${kind}`)], { cwd: dir, env: { DFTRACER_ENABLE: '1', DFTRACER_LOG_FILE: join(logDir, 'app'), ...env } });
    const files = traceFiles(logDir);
    try {
      assert(!/must be a file URL|no tfjs found/.test(r.out), `it could not find tfjs:\n${r.out}`);
      assert(files.length === 1, `expected one trace file, found ${files.length}:\n${r.out}`);
      const events = readTrace(files[0]);
      assert(events.at(-1)?.name === 'end', 'the trace has no end event');
      notes.push(`${kind}: ${check({ out: r.out, events, file: files[0], kind })}`);
    } catch (e) {
      throw new Error(`${file} (${kind === 'esm' ? 'import' : 'require'}): ${e.message}`);
    }
  }
  return notes.join('; ');
}

/** The ids of an event's ancestors, nearest first (p_idx links). */
function ancestors(events, e) {
  const byId = new Map(events.map((x) => [x.id, x]));
  const out = [];
  for (let p = byId.get(e.args?.p_idx); p !== undefined && out.length < 64; p = byId.get(p.args?.p_idx)) out.push(p.id);
  return out;
}

await step('npm publish --dry-run on every tarball', () => {
  for (const [name, file] of Object.entries(tarball)) {
    const r = sh('npm', ['publish', '--dry-run', '--access', 'public', '--tag', 'pack-check', file], { cwd: work, allowFail: true });
    if (r.status !== 0) process.stdout.write(r.out);
    assert(r.status === 0, `${name}: npm publish --dry-run failed`);
  }
  return `${Object.keys(tarball).length} tarballs would publish`;
});

// What `changeset version` would write at release, in a copy (no version bump here): a CHANGELOG
// for every public package that has pending changesets, and no workspace: range left unresolved.
await step('changeset version (dry run in a copy): a CHANGELOG per package', () => {
  const copy = join(work, 'changeset-dry-run');
  mkdirSync(copy);
  for (const f of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(root, f), join(copy, f));
  cpSync(join(root, '.changeset'), join(copy, '.changeset'), { recursive: true });
  for (const { dir } of workspace) cpSync(join(dir, 'package.json'), join(copy, relative(root, dir), 'package.json'));
  for (const d of readdirSync(join(root, 'apps'))) if (existsSync(join(root, 'apps', d, 'package.json'))) cpSync(join(root, 'apps', d, 'package.json'), join(copy, 'apps', d, 'package.json'));
  const pending = readdirSync(join(root, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (pending.length === 0) return 'no pending changesets';
  sh(bin('changeset'), ['version'], { cwd: copy });
  const missing = packages.filter(({ dir }) => !existsSync(join(copy, relative(root, dir), 'CHANGELOG.md'))).map(({ pkg }) => pkg.name);
  assert(missing.length === 0, `no CHANGELOG.md written for ${missing.join(', ')}`);
  const versions = packages.map(({ dir, pkg }) => `${pkg.name} ${pkg.version} → ${JSON.parse(readFileSync(join(copy, relative(root, dir), 'package.json'), 'utf8')).version}`);
  return `${pending.length} changesets; ${versions.join(', ')}`;
});

let coreTrace;
await step('1. @dftracer/core alone: node --import/--require @dftracer/core/register app', () => {
  assert(tarball['@dftracer/core'], 'no @dftracer/core tarball');
  const manifest = sh('tar', ['-xOzf', tarball['@dftracer/core'], 'package/package.json']).out;
  assert(!manifest.includes('@tensorflow/'), '@dftracer/core names a tfjs package in its package.json');
  const dir = freshProject('core-only', [tarball['@dftracer/core']]);
  const deps = installed(dir);
  assert(deps.join() === '@dftracer/core', `core alone should install nothing else, got ${deps.join(', ')}`);
  const data = join(dir, 'data');
  const note = bothModuleSystems(
    dir,
    'core-app.mjs',
    { args: [data], flags: (kind) => [kind === 'esm' ? '--import' : '--require', '@dftracer/core/register'], env: { DFTRACER_DATA_DIR: dir } },
    ({ out, events, file, kind }) => {
      assert(out.includes('read 32768 bytes'), 'the program did not run to its end');
      const posix = events.filter((e) => e.cat === 'POSIX');
      const names = new Set(posix.map((e) => e.name));
      for (const n of ['open', 'read', 'write', 'close']) assert(names.has(n), `no POSIX ${n} event (got ${[...names].join(', ')})`);
      if (kind === 'esm') coreTrace = file;
      return `${posix.length} POSIX events (${[...names].sort().join(', ')})`;
    },
  );
  return `${note}; node_modules: ${deps.join(', ')}`;
});

await step('2. core + @dftracer/tfjs + @tensorflow/tfjs: loadTf', () => {
  const dir = freshProject('tfjs-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], '@tensorflow/tfjs@^4.22.0']);
  const deps = installed(dir);
  const unwanted = deps.filter((d) => /^@dftracer\/(ai|dynamo|profiler|analyzer)$|^@tensorflow\/tfjs-(node|backend-webgpu)|^webgpu$/.test(d));
  assert(unwanted.length === 0, `installed what was not asked for: ${unwanted.join(', ')}`);
  const note = bothModuleSystems(dir, 'tfjs-app.mjs', {}, ({ out, events }) => {
    assert(/loaded @tensorflow\/tfjs on cpu \(cpu\), handed over: true, sum 28/.test(out), `loadTf did not load tfjs's cpu backend:\n${out}`);
    const cm = events.filter((e) => e.name === 'CM' && e.args?.name === 'tfjs');
    assert(cm.length === 1 && JSON.parse(cm[0].args.value).backend === 'cpu', `expected one tfjs CM record on cpu, got ${JSON.stringify(cm)}`);
    return `${out.match(/^loaded .*$/m)[0]}; tfjs CM record written`;
  });
  return `${note}; @dftracer packages installed: ${deps.filter((d) => d.startsWith('@dftracer/')).join(', ')}`;
});

await step('2. core + @dftracer/tfjs + @dftracer/ai + @tensorflow/tfjs: an ai.data.item program', () => {
  const dir = freshProject('ai-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], tarball['@dftracer/ai'], '@tensorflow/tfjs@^4.22.0']);
  const deps = installed(dir);
  const unwanted = deps.filter((d) => /^@dftracer\/(dynamo|profiler|analyzer)$|^@duckdb\/|duckdb|^@tensorflow\/tfjs-node/.test(d));
  assert(unwanted.length === 0, `installed what was not asked for: ${unwanted.join(', ')}`);
  const note = bothModuleSystems(dir, 'ai-app.mjs', { args: [join(dir, 'data')] }, ({ out, events }) => {
    assert(/sum 448 on tfjs cpu/.test(out), `the program did not compute its result (16 × (0 + … + 7) = 448) on cpu:\n${out}`);
    const items = events.filter((e) => e.cat === 'data' && e.ph === 'X');
    assert(items.length === 8, `expected 8 data item events, got ${items.length}`);
    const itemIds = new Set(items.map((e) => e.id));
    const nested = events.filter((e) => e.cat === 'POSIX' && e.name === 'read' && itemIds.has(e.args?.p_idx));
    assert(nested.length >= 8, `expected POSIX reads nested under data items, got ${nested.length}`);
    // each forward returns a [4] float32 tensor: 16 bytes, from the tensor hooks loadTf installed
    const forward = events.filter((e) => e.cat === 'compute' && e.name === 'forward');
    assert(forward.length === 8, `expected 8 forward events, got ${forward.length}`);
    const facts = forward.filter((e) => JSON.stringify(e.args.out_shape) === '[4]' && e.args.out_bytes === 16);
    assert(facts.length === 8, `forward events lack tensor facts (out_shape [4], out_bytes 16): ${JSON.stringify(forward[0]?.args)}`);
    return `${items.length} data events, ${nested.length} reads nested in them, ${facts.length} forward events with out_shape and out_bytes`;
  });
  return `${note}; @dftracer packages installed: ${deps.filter((d) => d.startsWith('@dftracer/')).join(', ')}; ${deps.length} packages in all`;
});

// The other integrations alone, each with core and the tfjs layer only.
const integrations = [
  [
    '@dftracer/dynamo',
    'dynamo-app.mjs',
    ({ out, events }) => {
      assert(/output \[5,2\]/.test(out), `the program did not finish:\n${out}`);
      const calls = events.filter((e) => e.cat === 'dynamo' && e.args?.op === 'call');
      assert(calls.length === 1, `expected one compiled call event, got ${calls.length}`);
      // the model's two dense layers run one fused matmul each, under the call and its module events
      const kernels = events.filter((e) => e.cat === 'dynamo' && e.name === 'function._FusedMatMul');
      const under = kernels.filter((k) => ancestors(events, k).includes(calls[0].id));
      assert(kernels.length === 2 && under.length === 2, `expected 2 _FusedMatMul kernels nested under ${calls[0].name}, got ${kernels.length} (${under.length} nested)`);
      return `${events.filter((e) => e.cat === 'dynamo').length} dynamo events, ${under.length} matmul kernels nested under ${calls[0].name}`;
    },
  ],
  [
    '@dftracer/profiler',
    'profiler-app.mjs',
    ({ out, events }) => {
      assert(/profiled/.test(out), `the program did not finish:\n${out}`);
      const pp = events.filter((e) => e.cat === 'PP');
      // two active steps, each running MatMul, Relu and Sum
      const matmuls = pp.filter((e) => /matmul/i.test(e.name));
      assert(matmuls.length >= 2, `expected a MatMul PP event per active step, got ${matmuls.length} (of ${pp.length} PP events)`);
      return `${pp.length} PP events, ${matmuls.length} of them MatMul`;
    },
  ],
];
for (const [pkg, app, check] of integrations) {
  await step(`3. ${pkg} with core, @dftracer/tfjs and @tensorflow/tfjs only`, () => {
    const dir = freshProject(pkg.split('/')[1] + '-only', [tarball['@dftracer/core'], tarball['@dftracer/tfjs'], tarball[pkg], '@tensorflow/tfjs@^4.22.0']);
    const deps = installed(dir);
    const others = deps.filter((d) => d.startsWith('@dftracer/') && d !== pkg && d !== '@dftracer/core' && d !== '@dftracer/tfjs');
    assert(others.length === 0, `installed other dftracer packages: ${others.join(', ')}`);
    return `${bothModuleSystems(dir, app, {}, check)}; @dftracer packages installed: ${deps.filter((d) => d.startsWith('@dftracer/')).join(', ')}`;
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
