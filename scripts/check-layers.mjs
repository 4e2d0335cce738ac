#!/usr/bin/env node
// The repository's layering rules, checked from source text (plain Node, no dependencies):
//   node scripts/check-layers.mjs [root]      exits 1 with one line per violation
//   node scripts/check-layers.mjs --self-test  plants each violation in a scratch tree and expects it caught
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const INTEGRATIONS = ['ai', 'dynamo', 'profiler'];
const RUNTIME_DEPS = ['dependencies', 'peerDependencies', 'optionalDependencies'];
const ALL_DEPS = [...RUNTIME_DEPS, 'devDependencies'];

/** Test support and tests: they may use tfjs directly and are not part of any package's code. */
const isTestFile = (f) => /\.test(-util)?\.ts$/.test(f);

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const depNames = (pkg, fields) => fields.flatMap((f) => Object.keys(pkg[f] ?? {}));

/** Module specifiers of a source file: static imports/exports (type-only flagged), import(), require(). */
function importsOf(text) {
  const out = [];
  const stat = /^\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (let m; (m = stat.exec(text)); ) out.push({ spec: m[4], typeOnly: m[2] !== undefined, kind: 'static' });
  // import('x') as a value (a type position reads `import('x').T` or `typeof import('x')`).
  const dyn = /(importBackend:\s*\(\)\s*=>\s*)?(typeof\s+)?\bimport\(\s*['"]([^'"]+)['"]\s*\)(\s*\.)?/g;
  for (let m; (m = dyn.exec(text)); ) out.push({ spec: m[3], typeOnly: m[2] !== undefined || m[4] !== undefined, kind: m[1] !== undefined ? 'handed to loadTf' : 'dynamic' });
  const req = /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m; (m = req.exec(text)); ) out.push({ spec: m[1], typeOnly: false, kind: 'require' });
  return out;
}

/** Every rule over the tree at `root`; returns [{ rule, where, what }]. */
export function check(root) {
  const problems = [];
  const say = (rule, where, what) => problems.push({ rule, where: relative(root, where) || '.', what });
  const pkgDir = (name) => join(root, 'packages', name);
  const srcFiles = (dir) => walk(join(dir, 'src'));
  const codeFiles = (dir) => srcFiles(dir).filter((f) => !isTestFile(f));

  // 1. The core knows no framework.
  const corePkg = join(pkgDir('core'), 'package.json');
  if (existsSync(corePkg)) {
    const pkg = readJson(corePkg);
    for (const d of [...depNames(pkg, ALL_DEPS), ...Object.keys(pkg.peerDependenciesMeta ?? {})]) {
      if (d.startsWith('@tensorflow/')) say('core-no-tfjs', corePkg, `package.json names ${d}`);
    }
  }
  for (const f of srcFiles(pkgDir('core'))) {
    const text = readFileSync(f, 'utf8');
    for (const i of importsOf(text)) if (i.spec.startsWith('@tensorflow/')) say('core-no-tfjs', f, `imports ${i.spec}`);
    const kernel = /\b(registerKernel|unregisterKernel|getKernelsForBackend|kernelFunc|backendNames)\b/.exec(text);
    if (kernel !== null) say('core-no-tfjs', f, `tfjs kernel/engine code (${kernel[1]})`);
  }

  // 2. Integrations obtain tfjs only through @dftracer/tfjs, and depend on core + tfjs only.
  for (const name of INTEGRATIONS) {
    const dir = pkgDir(name);
    if (!existsSync(dir)) continue;
    const pkgFile = join(dir, 'package.json');
    const pkg = readJson(pkgFile);
    for (const d of depNames(pkg, RUNTIME_DEPS)) {
      if (d !== '@dftracer/core' && d !== '@dftracer/tfjs') say('integration-deps', pkgFile, `runtime dependency ${d} (only @dftracer/core and @dftracer/tfjs)`);
    }
    for (const f of codeFiles(dir)) {
      for (const i of importsOf(readFileSync(f, 'utf8'))) {
        if (i.spec.startsWith('@tensorflow/') && !i.typeOnly) say('tfjs-through-layer', f, `imports ${i.spec} (obtain tfjs through @dftracer/tfjs)`);
      }
    }
  }
  // The examples' shared code sets tfjs up through @dftracer/tfjs too; it may use the tfjs API a program imports.
  for (const f of walk(join(root, 'apps', 'examples', 'src', 'lib')).filter((f) => !isTestFile(f))) {
    for (const i of importsOf(readFileSync(f, 'utf8'))) {
      if (!i.spec.startsWith('@tensorflow/') || i.typeOnly) continue;
      if (i.spec === '@tensorflow/tfjs' && i.kind === 'static') continue;
      // loadTf({ webgpu: { importBackend: () => import(…) } }): loadTf decides when (a bundle's only way).
      if (i.spec === '@tensorflow/tfjs-backend-webgpu' && i.kind === 'handed to loadTf') continue;
      say('tfjs-through-layer', f, `loads ${i.spec} itself (${i.kind}); use loadTf from @dftracer/tfjs`);
    }
  }

  // 3. Integrations never import each other (tests included).
  for (const name of INTEGRATIONS) {
    const others = INTEGRATIONS.filter((n) => n !== name).map((n) => `@dftracer/${n}`);
    const dir = pkgDir(name);
    if (!existsSync(dir)) continue;
    const pkg = readJson(join(dir, 'package.json'));
    for (const d of depNames(pkg, ALL_DEPS)) if (others.includes(d)) say('integrations-independent', join(dir, 'package.json'), `depends on ${d}`);
    for (const f of srcFiles(dir)) {
      for (const i of importsOf(readFileSync(f, 'utf8'))) if (others.some((o) => i.spec === o || i.spec.startsWith(`${o}/`))) say('integrations-independent', f, `imports ${i.spec}`);
    }
  }

  // 4. The analyzer stands alone at run time.
  const analyzerPkg = join(pkgDir('analyzer'), 'package.json');
  if (existsSync(analyzerPkg) && depNames(readJson(analyzerPkg), RUNTIME_DEPS).includes('@dftracer/core')) {
    say('analyzer-standalone', analyzerPkg, 'runtime dependency @dftracer/core');
  }

  // 5. No cycles: between workspace packages, and between the modules of each package (runtime imports).
  const pkgs = new Map();
  for (const base of ['packages', 'apps']) {
    const d = join(root, base);
    if (!existsSync(d)) continue;
    for (const n of readdirSync(d)) {
      const p = join(d, n, 'package.json');
      if (existsSync(p)) pkgs.set(readJson(p).name, { dir: join(d, n), pkg: readJson(p) });
    }
  }
  const pkgGraph = new Map([...pkgs].map(([n, { pkg }]) => [n, depNames(pkg, ALL_DEPS).filter((d) => pkgs.has(d))]));
  for (const c of cycles(pkgGraph)) say('no-cycles', root, `packages ${c.join(' → ')}`);
  for (const { dir } of pkgs.values()) {
    const graph = new Map();
    for (const f of srcFiles(dir)) {
      const deps = [];
      for (const i of importsOf(readFileSync(f, 'utf8'))) {
        // Type-only imports are erased: a type-only back edge orders no module initialization.
        if (!i.spec.startsWith('.') || i.typeOnly) continue;
        const target = resolveModule(f, i.spec);
        if (target !== null) deps.push(target);
      }
      graph.set(f, deps);
    }
    for (const c of cycles(graph)) say('no-cycles', dir, `modules ${c.map((f) => relative(dir, f)).join(' → ')}`);
  }

  // 6. One of each facility in the tree (tests may rebuild them to check them).
  const code = [...pkgs.values()].flatMap(({ dir }) => codeFiles(dir));
  const single = (rule, pattern, what) => {
    const hits = code.filter((f) => pattern.test(readFileSync(f, 'utf8')));
    if (hits.length > 1) say(rule, root, `${what} in ${hits.length} files: ${hits.map((f) => relative(root, f)).join(', ')}`);
    return hits;
  };
  const clocks = single('one-clock', /performance\.timeOrigin/, 'performance.timeOrigin');
  for (const f of clocks) if (!f.endsWith(join('packages', 'core', 'src', 'recording', 'clock.ts'))) say('one-clock', f, "performance.timeOrigin outside core's clock (use nowUs/perfMsToUs from @dftracer/core)");
  single('one-warn-once', /\bfunction\s+warnOnce\b/, 'function warnOnce');
  single('one-dtype-table', /\{\s*float32:\s*4\b/, 'a dtype→bytes table');
  single('one-descriptor-check', /\bfunction\s+isDescriptor\b/, 'function isDescriptor');
  // unknown option names: core's checkOptionKeys, with its "did you mean", everywhere
  for (const f of single('one-option-check', /unknown option \$\{/, 'an unknown-option message')) {
    if (!f.endsWith(join('packages', 'core', 'src', 'plugin', 'option-keys.ts'))) say('one-option-check', f, "an unknown-option message of its own (use checkOptionKeys from @dftracer/core)");
  }
  return problems;
}

/** `./x.js` from `from`: the .ts file it names, or the folder's index.ts; null if neither exists. */
function resolveModule(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.(m?js)$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (c.endsWith('.ts') && existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** Each cycle of a directed graph once (DFS, the back edge's path). */
function cycles(graph) {
  const found = [];
  const state = new Map(); // 1 on the stack, 2 done
  const stack = [];
  const visit = (n) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 1) found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (state.get(m) === undefined && graph.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (state.get(n) === undefined) visit(n);
  return found;
}

// ------------------------------------------------------------------ self-test

function selfTest() {
  const root = mkdtempSync(join(tmpdir(), 'check-layers-'));
  const put = (p, text) => {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), typeof text === 'string' ? text : JSON.stringify(text));
  };
  const pkg = (name, deps = {}, more = {}) => ({ name, dependencies: deps, ...more });
  const clean = () => {
    rmSync(root, { recursive: true, force: true });
    put('packages/core/package.json', pkg('@dftracer/core', {}, { devDependencies: { '@dftracer/testing': '*' } }));
    put('packages/core/src/recording/clock.ts', 'const ORIGIN = performance.timeOrigin;\nexport function nowUs() { return ORIGIN; }\n');
    put('packages/core/src/warn.ts', "import { nowUs } from './recording/clock.js';\nexport function warnOnce() { nowUs(); }\nexport function isDescriptor() {}\n");
    put('packages/testing/package.json', pkg('@dftracer/testing'));
    put('packages/tfjs/package.json', pkg('@dftracer/tfjs', { '@dftracer/core': '*' }, { peerDependencies: { '@tensorflow/tfjs': '*' } }));
    put('packages/tfjs/src/tensors.ts', "import * as tf from '@tensorflow/tfjs-core';\nexport const BYTES = { float32: 4, int32: 4 };\n");
    for (const n of INTEGRATIONS) {
      put(`packages/${n}/package.json`, pkg(`@dftracer/${n}`, { '@dftracer/core': '*', '@dftracer/tfjs': '*' }, { devDependencies: { '@tensorflow/tfjs': '*' } }));
      put(`packages/${n}/src/index.ts`, "import type { Tensor } from '@tensorflow/tfjs';\nimport { a } from './a.js';\nexport type T = import('@tensorflow/tfjs').Tensor;\n");
      put(`packages/${n}/src/a.ts`, "import type { T } from './index.js';\nexport const a = 1;\n");
      put(`packages/${n}/src/a.test.ts`, "import * as tf from '@tensorflow/tfjs';\nconst t0 = performance.timeOrigin;\n");
    }
    put('packages/analyzer/package.json', pkg('@dftracer/analyzer', {}, { devDependencies: { '@dftracer/testing': '*' } }));
    put('apps/examples/package.json', pkg('@dftracer/examples', { '@dftracer/ai': '*' }));
    put('apps/examples/src/lib/model.ts', "import * as tf from '@tensorflow/tfjs';\nimport { loadTf } from '@dftracer/tfjs';\n");
  };
  const plants = [
    ['core-no-tfjs', () => put('packages/core/package.json', pkg('@dftracer/core', {}, { devDependencies: { '@tensorflow/tfjs': '*' } }))],
    ['core-no-tfjs', () => put('packages/core/src/hub.ts', "import * as tf from '@tensorflow/tfjs-core';\n")],
    ['core-no-tfjs', () => put('packages/core/src/hub.ts', 'export function f(tf) { tf.registerKernel({}); }\n')],
    ['integration-deps', () => put('packages/ai/package.json', pkg('@dftracer/ai', { '@dftracer/core': '*', '@tensorflow/tfjs': '*' }))],
    ['tfjs-through-layer', () => put('packages/dynamo/src/runtime.ts', "import * as tf from '@tensorflow/tfjs-core';\n")],
    ['tfjs-through-layer', () => put('packages/profiler/src/tf.ts', "const tf = createRequire(import.meta.url)('@tensorflow/tfjs-core');\nconst r = require('@tensorflow/tfjs');\n")],
    ['tfjs-through-layer', () => put('packages/ai/src/load.ts', "const tf = await import('@tensorflow/tfjs');\n")],
    ['tfjs-through-layer', () => put('apps/examples/src/lib/backend.ts', "await import('@tensorflow/tfjs-node');\n")],
    ['integrations-independent', () => put('packages/profiler/src/b.ts', "import { ai } from '@dftracer/ai';\n")],
    ['integrations-independent', () => put('packages/dynamo/src/b.test.ts', "import { profile } from '@dftracer/profiler';\n")],
    ['analyzer-standalone', () => put('packages/analyzer/package.json', pkg('@dftracer/analyzer', { '@dftracer/core': '*' }))],
    ['no-cycles', () => put('packages/core/package.json', pkg('@dftracer/core', { '@dftracer/tfjs': '*' }))],
    ['no-cycles', () => put('packages/ai/src/a.ts', "import { x } from './index.js';\nexport const a = 1;\n")],
    [
      'no-cycles',
      () => {
        put('packages/ai/src/a.ts', "export { x } from './dir/index.js';\n");
        put('packages/ai/src/dir/index.ts', "import { a } from '../a.js';\nexport const x = a;\n");
      },
    ],
    ['one-clock', () => put('packages/profiler/src/clock.ts', 'export const nowUs = () => performance.timeOrigin + performance.now();\n')],
    ['one-warn-once', () => put('packages/dynamo/src/runtime.ts', 'function warnOnce(key, message) {}\n')],
    ['one-dtype-table', () => put('packages/profiler/src/kernel-log.ts', 'const BYTES = { float32: 4, int32: 4, bool: 1 };\n')],
    ['one-descriptor-check', () => put('packages/ai/src/ai-tracer.ts', 'function isDescriptor(v) { return false; }\n')],
    ['one-option-check', () => put('packages/profiler/src/profiler.ts', 'throw new TypeError(`profile: unknown option ${k}`);\n')],
  ];
  let failed = 0;
  try {
    clean();
    const base = check(root);
    if (base.length > 0) {
      failed++;
      console.error(`self-test: the clean tree has problems:\n${base.map(line).join('\n')}`);
    }
    for (const [rule, plant] of plants) {
      clean();
      plant();
      const got = check(root);
      const ok = got.length > 0 && got.every((p) => p.rule === rule);
      if (!ok) {
        failed++;
        console.error(`self-test: planting a ${rule} violation gave ${got.length === 0 ? 'nothing' : got.map(line).join('; ')}`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`check-layers self-test: ${plants.length + 1 - failed}/${plants.length + 1} cases as expected (a clean tree, then each planted violation)`);
  return failed === 0;
}

const line = (p) => `${p.rule}: ${p.where.split(sep).join('/')}: ${p.what}`;

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--self-test')) process.exit(selfTest() ? 0 : 1);
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = check(root);
  for (const p of problems) console.error(line(p));
  const rules = ['core-no-tfjs', 'integration-deps', 'tfjs-through-layer', 'integrations-independent', 'analyzer-standalone', 'no-cycles', 'one-clock', 'one-warn-once', 'one-dtype-table', 'one-descriptor-check', 'one-option-check'];
  const failing = new Set(problems.map((p) => p.rule));
  console.log(`check-layers: ${rules.map((r) => `${r} ${failing.has(r) ? 'FAIL' : 'ok'}`).join(', ')}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
